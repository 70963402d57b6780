import Interlock

// Many lookups in one call: for hosts where each call into the library costs (Python's ctypes).

final class BatchHandle {
    let matcher = Matcher(preallocate: true)
    var statuses: [Int32] = []
    var routeIDs: [UInt32] = []
    var offsets: [Int] = [0]
    /// The answers' texts, NUL-terminated one after another: a buffer of its own, since appending
    /// to an array byte ranges of a few bytes each cost more than the lookups.
    private(set) var text = UnsafeMutablePointer<CChar>.allocate(capacity: 4096)
    private(set) var textCount = 0
    private var textCapacity = 4096

    func clearText() { textCount = 0 }

    /// Appends `n` bytes at `p` and a NUL.
    func appendText(_ p: UnsafePointer<CChar>, _ n: Int) {
        if textCount + n + 1 > textCapacity {
            var capacity = textCapacity * 2
            while capacity < textCount + n + 1 { capacity *= 2 }
            let grown = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
            grown.initialize(from: text, count: textCount)
            text.deallocate()
            text = grown
            textCapacity = capacity
        }
        (text + textCount).initialize(from: p, count: n)
        text[textCount + n] = 0
        textCount += n + 1
    }

    deinit { text.deallocate() }
}

@_cdecl("ilk_match_batch_new")
public func ilk_match_batch_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return invalid("out is NULL") }
    out.pointee = retained(BatchHandle())
    return ILK_OK
}

@_cdecl("ilk_match_batch_free")
public func ilk_match_batch_free(_ b: OpaquePointer?) { release(b, as: BatchHandle.self) }

@_cdecl("ilk_router_match_many")
public func ilk_router_match_many(
    _ router: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ uris: UnsafePointer<CChar>?, _ urisLength: Int,
    _ batch: OpaquePointer?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let b = handle(batch, as: BatchHandle.self) else { return invalid("batch is NULL") }
    guard uris != nil || urisLength == 0 else { return invalid("uris is NULL but uris_len is \(urisLength)") }
    guard urisLength == 0 || uris![urisLength - 1] == 0 else {
        return invalid("uris does not end with a NUL byte (each URI is followed by one)")
    }
    b.statuses.removeAll(keepingCapacity: true)
    b.routeIDs.removeAll(keepingCapacity: true)
    b.offsets.removeAll(keepingCapacity: true)
    b.offsets.append(0)
    b.clearText()
    let methodBuffer = method.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) }
    func append(_ p: UnsafePointer<CChar>, _ n: Int) { b.appendText(p, n) }
    var start = 0
    while start < urisLength {
        let uri = uris! + start
        let length = strlen(uri)
        start += length + 1
        do {
            let outcome = try b.matcher.match(r.router, method: methodBuffer, uri: UnsafeRawBufferPointer(start: uri, count: length))
            switch outcome {
            case .matched:
                b.statuses.append(ILK_OK)
                b.routeIDs.append(b.matcher.routeID)
                for k in 0..<b.matcher.parameterCount {
                    let (name, nameLength) = b.matcher.parameterName(k)
                    // Read in place when the path had no escapes: one copy, into the text.
                    let (value, valueLength) = b.matcher.parameterValueBytes(k)
                    append(name, nameLength)
                    append(value, valueLength)
                }
            case .notFound:
                b.statuses.append(ILK_NOT_FOUND); b.routeIDs.append(0)
            case .methodNotAllowed:
                b.statuses.append(ILK_METHOD_NOT_ALLOWED); b.routeIDs.append(0)
            }
        } catch where error.code == .invalidArgument {
            return fail(error)
        } catch {
            b.statuses.append(error.code.rawValue); b.routeIDs.append(0)
            let message = error.description
            message.withCString { append($0, strlen($0)) }
        }
        b.offsets.append(b.textCount)
    }
    return ILK_OK
}

@_cdecl("ilk_match_batch_count")
public func ilk_match_batch_count(_ b: OpaquePointer?) -> UInt { UInt(handle(b, as: BatchHandle.self)?.statuses.count ?? 0) }

@_cdecl("ilk_match_batch_arrays")
public func ilk_match_batch_arrays(
    _ b: OpaquePointer?, _ statuses: UnsafeMutablePointer<UnsafePointer<Int32>?>?,
    _ routeIDs: UnsafeMutablePointer<UnsafePointer<UInt32>?>?, _ offsets: UnsafeMutablePointer<UnsafePointer<Int>?>?
) -> Int32 {
    guard let h = handle(b, as: BatchHandle.self) else { return invalid("batch is NULL") }
    // The arrays live in the handle and are not changed until the next batch.
    statuses?.pointee = h.statuses.withUnsafeBufferPointer { $0.baseAddress }
    routeIDs?.pointee = h.routeIDs.withUnsafeBufferPointer { $0.baseAddress }
    offsets?.pointee = h.offsets.withUnsafeBufferPointer { $0.baseAddress }
    return ILK_OK
}

@_cdecl("ilk_match_batch_text")
public func ilk_match_batch_text(_ b: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let h = handle(b, as: BatchHandle.self) else { length?.pointee = 0; return nil }
    length?.pointee = h.textCount
    return UnsafePointer(h.text)
}

@_cdecl("ilk_match_batch_copy")
public func ilk_match_batch_copy(
    _ b: OpaquePointer?, _ out: UnsafeMutableRawPointer?, _ outLength: Int, _ needed: UnsafeMutablePointer<Int>?
) -> Int32 {
    needed?.pointee = 0
    guard let h = handle(b, as: BatchHandle.self) else { return invalid("batch is NULL") }
    let count = h.statuses.count
    // Statuses and route ids (4 bytes each), offsets (8 each, count + 1), then the text: the
    // offsets start 8-aligned, and every part is where the header says.
    let offsetsStart = 8 * count, textStart = offsetsStart + 8 * (count + 1)
    let total = textStart + h.textCount
    needed?.pointee = total
    guard outLength >= total else {
        return fail(InterlockError(.limit, "out holds \(outLength) bytes; the batch needs \(total)"))
    }
    guard let out else { return invalid("out is NULL") }
    // (An empty array may have no buffer at all: only what there is is copied.)
    func copy<T>(_ array: [T], to offset: Int) {
        array.withUnsafeBytes { if let p = $0.baseAddress { (out + offset).copyMemory(from: p, byteCount: $0.count) } }
    }
    copy(h.statuses, to: 0)
    copy(h.routeIDs, to: 4 * count)
    copy(h.offsets, to: offsetsStart)
    if h.textCount > 0 { (out + textStart).copyMemory(from: h.text, byteCount: h.textCount) }
    return ILK_OK
}
