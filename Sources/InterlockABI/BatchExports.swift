import Interlock

// Many lookups in one call: for hosts where each call into the library costs (Python's ctypes).

/// A batch's answers, kept in one buffer laid out as `ilk_match_batch_copy` writes it (statuses,
/// route ids, offsets, then the text), so that a host can take them all with one copy.
final class BatchHandle {
    let matcher = Matcher(preallocate: true)
    /// The number of answers: fixed before the lookups, so the arrays have their places.
    private(set) var count = 0
    /// The index of the first answer whose status is an error, or `count`.
    fileprivate(set) var firstError = 0
    fileprivate(set) var textCount = 0
    private(set) var image: UnsafeMutableRawPointer
    private(set) var capacity = 4096

    init() {
        image = .allocate(byteCount: 4096, alignment: 8)
        image.storeBytes(of: 0, as: Int.self)       // an empty batch: offsets[0] alone
    }
    deinit { image.deallocate() }

    /// Where the text starts: after 4-byte statuses and ids and 8-byte offsets (8-aligned, as
    /// 8 * count is).
    var textStart: Int { 16 * count + 8 }
    /// The bytes the whole batch takes.
    var size: Int { textStart + textCount }
    var statuses: UnsafeMutablePointer<Int32> { image.assumingMemoryBound(to: Int32.self) }
    var routeIDs: UnsafeMutablePointer<UInt32> { (image + 4 * count).assumingMemoryBound(to: UInt32.self) }
    var offsets: UnsafeMutablePointer<Int> { (image + 8 * count).assumingMemoryBound(to: Int.self) }
    var text: UnsafeMutablePointer<CChar> { (image + textStart).assumingMemoryBound(to: CChar.self) }

    /// Empties the batch and makes room for `n` answers.
    func begin(count n: Int) {
        count = n
        firstError = n
        textCount = 0
        _ = reserve(textStart + 256)
        offsets[0] = 0
    }

    /// Makes the image at least `bytes` long, keeping what it holds; returns where it now is.
    func reserve(_ bytes: Int) -> UnsafeMutableRawPointer {
        guard bytes > capacity else { return image }
        var grown = capacity * 2
        while grown < bytes { grown *= 2 }
        let image = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        image.copyMemory(from: self.image, byteCount: capacity)
        self.image.deallocate()
        self.image = image
        capacity = grown
        return image
    }
}

/// The method each URI of a batch is looked up under.
private enum BatchMethods {
    /// The same for every URI (nil: any method).
    case one(UnsafePointer<UInt8>?)
    /// One NUL-terminated entry per URI, one after the other ("" for any method), in `length`
    /// bytes whose last is a NUL; counted as the URIs are looked up.
    case each(UnsafePointer<UInt8>, length: Int)
}

/// The number of NUL-terminated entries in `length` bytes at `p`, the last of which is a NUL.
private func entryCount(_ p: UnsafePointer<CChar>, _ length: Int) -> Int {
    var n = 0, at = 0
    while at < length {
        at += strlen(p + at) + 1
        n += 1
    }
    return n
}

/// Looks up every URI of `uris` into `b`: the body of both batch calls.
private func matchAll(
    _ r: RouterHandle, _ methods: BatchMethods, _ uris: UnsafePointer<CChar>?, _ urisLength: Int, _ b: BatchHandle
) -> Int32 {
    guard uris != nil || urisLength == 0 else { return invalid("uris is NULL but uris_len is \(urisLength)") }
    guard urisLength == 0 || uris![urisLength - 1] == 0 else {
        return invalid("uris does not end with a NUL byte (each URI is followed by one)")
    }
    let count = urisLength == 0 ? 0 : entryCount(uris!, urisLength)
    var method: UnsafePointer<UInt8>? = nil
    var nextMethod: UnsafePointer<UInt8>? = nil, methodsEnd: UnsafePointer<UInt8>? = nil
    switch methods {
    case .one(let one):
        method = one
    case .each(let each, let length):
        nextMethod = each
        methodsEnd = each + length
    }
    func wrongMethodCount() -> Int32 {
        guard case .each(let each, let length) = methods else { return ILK_OK }
        b.begin(count: 0)
        let given = entryCount(UnsafeRawPointer(each).assumingMemoryBound(to: CChar.self), length)
        return invalid("methods holds \(given) entries for \(count) URIs (give one for all, or one per URI)")
    }
    b.begin(count: count)
    // The loop writes through locals (the image moves only when the text outgrows it), which
    // the class's fields, reloaded after every call into the matcher, would cost.
    var image = b.image, capacity = b.capacity
    let idsAt = 4 * count, offsetsAt = 8 * count, textStart = b.textStart
    var end = textStart
    func answer(_ i: Int, _ status: Int32, _ routeID: UInt32) {
        image.storeBytes(of: status, toByteOffset: 4 * i, as: Int32.self)
        image.storeBytes(of: routeID, toByteOffset: idsAt + 4 * i, as: UInt32.self)
        image.storeBytes(of: end - textStart, toByteOffset: offsetsAt + 8 * (i + 1), as: Int.self)
    }
    func append(_ p: UnsafePointer<CChar>, _ n: Int) {
        if end + n + 1 > capacity {
            image = b.reserve(end + n + 1)
            capacity = b.capacity
        }
        (image + end).copyMemory(from: p, byteCount: n)
        image.storeBytes(of: 0, toByteOffset: end + n, as: UInt8.self)
        end += n + 1
    }
    var start = 0
    for i in 0..<count {
        let uri = uris! + start
        let length = strlen(uri)
        start += length + 1
        if let entry = nextMethod {
            // (The methods end with a NUL, so strlen stays inside them.)
            guard entry < methodsEnd! else { return wrongMethodCount() }
            let entryLength = strlen(UnsafeRawPointer(entry).assumingMemoryBound(to: CChar.self))
            method = entryLength == 0 ? nil : entry
            nextMethod = entry + entryLength + 1
        }
        do {
            let outcome = try b.matcher.match(r.router, methodCString: method, uri: UnsafeRawBufferPointer(start: uri, count: length))
            switch outcome {
            case .matched:
                let need = b.matcher.packParameters(into: image + end, capacity: capacity - end)
                if need > capacity - end {
                    image = b.reserve(end + need)
                    capacity = b.capacity
                    _ = b.matcher.packParameters(into: image + end, capacity: capacity - end)
                }
                end += need
                answer(i, ILK_OK, b.matcher.routeID)
            case .notFound:
                answer(i, ILK_NOT_FOUND, 0)
            case .methodNotAllowed:
                answer(i, ILK_METHOD_NOT_ALLOWED, 0)
            }
        } catch where error.code == .invalidArgument {
            // A malformed method: the batch is left empty rather than half filled.
            b.begin(count: 0)
            if case .each = methods { return fail(InterlockError(.invalidArgument, "method \(i): \(error.message)")) }
            return fail(error)
        } catch {
            error.description.withCString { append($0, strlen($0)) }
            answer(i, error.code.rawValue, 0)
            if b.firstError == count { b.firstError = i }
        }
    }
    b.textCount = end - textStart
    if let nextMethod, nextMethod != methodsEnd { return wrongMethodCount() }
    return ILK_OK
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
    return matchAll(r, .one(method.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }), uris, urisLength, b)
}

@_cdecl("ilk_router_match_requests")
public func ilk_router_match_requests(
    _ router: OpaquePointer?, _ methods: UnsafePointer<CChar>?, _ methodsLength: Int,
    _ uris: UnsafePointer<CChar>?, _ urisLength: Int, _ batch: OpaquePointer?, _ view: UnsafeMutableRawPointer?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let b = handle(batch, as: BatchHandle.self) else { return invalid("batch is NULL") }
    var given = BatchMethods.one(nil)
    if methodsLength > 0 {
        guard let methods else { return invalid("methods is NULL but methods_len is \(methodsLength)") }
        guard methods[methodsLength - 1] == 0 else {
            return invalid("methods does not end with a NUL byte (each method is followed by one)")
        }
        let first = UnsafeRawPointer(methods).assumingMemoryBound(to: UInt8.self)
        // One entry names the method of every URI ("" any); more, one each.
        given = strlen(methods) + 1 == methodsLength ? .one(first[0] == 0 ? nil : first) : .each(first, length: methodsLength)
    }
    let status = matchAll(r, given, uris, urisLength, b)
    if status == ILK_OK, let view {
        // ilk_match_batch_view's fields, in the header's order: count, first_error, data, size.
        view.storeBytes(of: b.count, toByteOffset: 0, as: Int.self)
        view.storeBytes(of: b.firstError, toByteOffset: 8, as: Int.self)
        view.storeBytes(of: UnsafeRawPointer(b.image), toByteOffset: 16, as: UnsafeRawPointer.self)
        view.storeBytes(of: b.size, toByteOffset: 24, as: Int.self)
    }
    return status
}

@_cdecl("ilk_match_batch_count")
public func ilk_match_batch_count(_ b: OpaquePointer?) -> UInt { UInt(handle(b, as: BatchHandle.self)?.count ?? 0) }

@_cdecl("ilk_match_batch_arrays")
public func ilk_match_batch_arrays(
    _ b: OpaquePointer?, _ statuses: UnsafeMutablePointer<UnsafePointer<Int32>?>?,
    _ routeIDs: UnsafeMutablePointer<UnsafePointer<UInt32>?>?, _ offsets: UnsafeMutablePointer<UnsafePointer<Int>?>?
) -> Int32 {
    guard let h = handle(b, as: BatchHandle.self) else { return invalid("batch is NULL") }
    // The arrays live in the handle and are not changed until the next batch.
    statuses?.pointee = UnsafePointer(h.statuses)
    routeIDs?.pointee = UnsafePointer(h.routeIDs)
    offsets?.pointee = UnsafePointer(h.offsets)
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
    let total = h.size
    needed?.pointee = total
    guard outLength >= total else {
        return fail(InterlockError(.limit, "out holds \(outLength) bytes; the batch needs \(total)"))
    }
    guard let out else { return invalid("out is NULL") }
    // The batch is kept in this layout already: one copy.
    out.copyMemory(from: h.image, byteCount: total)
    return ILK_OK
}
