// The request's method: the common ones recognized by their bytes, any other checked byte by byte.

extension Matcher {
    /// The methods most requests carry, recognized by comparing bytes (each read only if those
    /// before it matched, so no byte past the NUL is read) without the check every byte of other
    /// methods needs: the method's bytes as one little-endian word (what `MethodWord` reads) and
    /// its length.
    @inline(__always) static func commonMethod(_ m: UnsafePointer<UInt8>) -> (UInt64, Int)? {
        switch m[0] {
        case 0x47:      // G
            if m[1] == 0x45 && m[2] == 0x54 && m[3] == 0 { return (MethodWord.get, 3) }                   // GET
        case 0x50:      // P
            switch m[1] {
            case 0x4F: if m[2] == 0x53 && m[3] == 0x54 && m[4] == 0 { return (MethodWord.post, 4) }      // POST
            case 0x55: if m[2] == 0x54 && m[3] == 0 { return (MethodWord.put, 3) }                         // PUT
            case 0x41:
                if m[2] == 0x54 && m[3] == 0x43 && m[4] == 0x48 && m[5] == 0 { return (MethodWord.patch, 5) }  // PATCH
            default: break
            }
        case 0x44:      // D
            if m[1] == 0x45 && m[2] == 0x4C && m[3] == 0x45 && m[4] == 0x54 && m[5] == 0x45 && m[6] == 0 {
                return (MethodWord.delete, 6)                                                          // DELETE
            }
        case 0x48:      // H
            if m[1] == 0x45 && m[2] == 0x41 && m[3] == 0x44 && m[4] == 0 { return (MethodWord.head, 4) }  // HEAD
        default: break
        }
        return nil
    }

    /// `commonMethod` for a method given by its bytes: the word and length of GET, POST, PUT,
    /// PATCH, DELETE or HEAD, nil for any other.
    @inline(__always) static func commonMethod(_ m: UnsafeRawBufferPointer) -> (UInt64, Int)? {
        guard m.count >= 3 && m.count <= 6 else { return nil }
        let word = MethodWord.of(m)
        switch word {
        case MethodWord.get, MethodWord.post, MethodWord.put, MethodWord.patch, MethodWord.delete, MethodWord.head: return (word, m.count)
        default: return nil
        }
    }

    /// Checks a NUL-terminated method as a lookup does (nil is any method), without looking
    /// anything up: for a batch, whose answer for a malformed method is an error whatever its URIs.
    /// - Parameter method: the method's bytes, NUL-terminated, or nil.
    /// - Throws: `.invalidArgument` naming the problem (and the offset of a bad byte).
    package static func checkMethod(_ method: UnsafePointer<UInt8>?) throws(InterlockError) {
        guard let method, commonMethod(method) == nil else { return }
        _ = try uncommonMethod(method, copyingTo: nil)
    }

    /// Checks a NUL-terminated method other than the common ones byte by byte, writing it at
    /// `subject` if one is given (the lookup's copy; nil only checks).
    /// - Returns: The method's length in bytes: 0 for "", which, as nil, is any method.
    /// - Throws: `.invalidArgument` for a too long method, or a byte that is no token
    ///   character (with its offset). At most `maximumMethodLength` + 1 bytes are read.
    @inline(__always) static func uncommonMethod(
        _ method: UnsafePointer<UInt8>, copyingTo subject: UnsafeMutablePointer<UInt8>?
    ) throws(InterlockError) -> Int {
        var i = 0
        while true {
            let c = method[i]
            if c == 0 { break }
            guard i < maximumMethodLength else { throw methodTooLong() }
            try checkMethodByte(c, at: i)
            subject?[i] = c
            i += 1
        }
        return i
    }

    /// The error for a method longer than any method may be.
    static func methodTooLong() -> InterlockError {
        InterlockError(.invalidArgument, "method is longer than \(maximumMethodLength) bytes")
    }

    /// Checks one method byte, at `i` in the method.
    @inline(__always) static func checkMethodByte(_ c: UInt8, at i: Int) throws(InterlockError) {
        // Upper-case letters first: every common method is made of them.
        guard c &- 0x41 < 26 || isTokenChar(c) else {
            throw InterlockError(.invalidArgument, "invalid character in method", offset: i)
        }
    }

    /// Checks one method byte and writes it at `i` in `subject`.
    @inline(__always) static func copyMethodByte(_ c: UInt8, to subject: UnsafeMutablePointer<UInt8>, at i: Int) throws(InterlockError) {
        try checkMethodByte(c, at: i)
        subject[i] = c
    }
}
