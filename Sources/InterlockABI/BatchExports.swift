import CInterlock
import Interlock

// Many lookups in one call: for hosts where each call into the library costs (Python's ctypes).

/// A batch's answers: statuses, route ids and offsets in arrays of their own, the parameters'
/// text in a buffer, and on demand (`image()`) all four laid out as `ilk_match_batch_copy` writes
/// them, so that a host can take them with one copy. (Laid out so from the start, the arrays'
/// places would depend on a count of the URIs made before the lookups, a pass over them all.)
final class BatchHandle {
    let matcher = Matcher(preallocate: true)
    /// The number of answers: one per URI looked up.
    private(set) var count = 0
    private var firstErrorIndex = -1
    /// The index of the first answer whose status is an error, or `count`.
    var firstError: Int { firstErrorIndex < 0 ? count : firstErrorIndex }
    private(set) var statuses: UnsafeMutablePointer<Int32>
    private(set) var routeIDs: UnsafeMutablePointer<UInt32>
    /// `count + 1` offsets into the text: answer i's is offsets[i]..<offsets[i + 1].
    private(set) var offsets: UnsafeMutablePointer<Int>
    private(set) var answerCapacity = 256
    private(set) var text: UnsafeMutableRawPointer
    private(set) var textCount = 0
    private var textCapacity = 4096
    private var imageBuffer: UnsafeMutableRawPointer? = nil
    private var imageCapacity = 0

    init() {
        statuses = .allocate(capacity: answerCapacity)
        routeIDs = .allocate(capacity: answerCapacity)
        offsets = .allocate(capacity: answerCapacity + 1)
        offsets[0] = 0
        text = .allocate(byteCount: textCapacity, alignment: 8)
    }

    deinit {
        statuses.deallocate(); routeIDs.deallocate(); offsets.deallocate()
        text.deallocate()
        imageBuffer?.deallocate()
    }

    /// The bytes the batch takes laid out (`BatchLayout`): the arrays, then the text.
    var size: Int { BatchLayout(count: count).text + textCount }

    /// Empties the batch.
    func clear() {
        count = 0
        firstErrorIndex = -1
        textCount = 0
    }

    /// Sets answer `count` (answers come in order; its text is already appended) and counts it.
    @inline(__always) func append(status: Int32, routeID: UInt32) {
        if count == answerCapacity { growAnswers() }
        statuses[count] = status
        routeIDs[count] = routeID
        offsets[count + 1] = textCount
        if status < 0 && firstErrorIndex < 0 { firstErrorIndex = count }
        count += 1
    }

    /// Appends `n` bytes at `p` and a NUL to the text.
    func appendText(_ p: UnsafeRawPointer, _ n: Int) {
        let text = reserveText(textCount + n + 1)
        (text + textCount).copyMemory(from: p, byteCount: n)
        text.storeBytes(of: 0, toByteOffset: textCount + n, as: UInt8.self)
        textCount += n + 1
    }

    private func growAnswers() {
        let grown = 2 * answerCapacity
        func regrow<T>(_ p: UnsafeMutablePointer<T>, _ keep: Int, _ capacity: Int) -> UnsafeMutablePointer<T> {
            let q = UnsafeMutablePointer<T>.allocate(capacity: capacity)
            q.moveInitialize(from: p, count: keep)
            p.deallocate()
            return q
        }
        statuses = regrow(statuses, count, grown)
        routeIDs = regrow(routeIDs, count, grown)
        offsets = regrow(offsets, count + 1, grown + 1)
        answerCapacity = grown
    }

    /// Appends the parameters of the matcher's last match to the text, packed (see
    /// `Matcher.packParameters`): into the room the text has, or, if they need more, packed
    /// again once it is grown.
    func appendParameters() {
        let end = textCount, room = textCapacity - end
        let need = matcher.packParameters(into: text + end, capacity: room)
        if need > room { _ = matcher.packParameters(into: reserveText(end + need) + end, capacity: need) }
        textCount = end + need
    }

    /// Makes the text's buffer at least `bytes` long, keeping what it holds; returns where it is.
    private func reserveText(_ bytes: Int) -> UnsafeMutableRawPointer {
        guard bytes > textCapacity else { return text }
        var grown = textCapacity * 2
        while grown < bytes { grown *= 2 }
        let text = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        text.copyMemory(from: self.text, byteCount: textCount)
        self.text.deallocate()
        self.text = text
        textCapacity = grown
        return text
    }

    /// Writes the batch laid out as ilk_match_batch_copy documents to `out` (`size` bytes).
    func write(to out: UnsafeMutableRawPointer) {
        let at = BatchLayout(count: count)
        out.copyMemory(from: statuses, byteCount: at.routeIDs)
        (out + at.routeIDs).copyMemory(from: routeIDs, byteCount: at.offsets - at.routeIDs)
        (out + at.offsets).copyMemory(from: offsets, byteCount: at.text - at.offsets)
        (out + at.text).copyMemory(from: text, byteCount: textCount)
    }

    /// The batch laid out in a buffer of the handle's, valid until its next use.
    func image() -> UnsafeRawPointer {
        if size > imageCapacity {
            imageBuffer?.deallocate()
            imageCapacity = max(2 * imageCapacity, size)
            imageBuffer = .allocate(byteCount: imageCapacity, alignment: 8)
        }
        write(to: imageBuffer!)
        return UnsafeRawPointer(imageBuffer!)
    }
}

/// Where the parts of a batch of `count` answers begin in its layout (ilk_match_batch_copy), in
/// bytes: the statuses at 0, then the route ids, the `count + 1` offsets and the text, each
/// array as long as the header's element size says (the header's ILK_BATCH_*_AT, which Swift
/// cannot import).
struct BatchLayout {
    let routeIDs: Int, offsets: Int, text: Int

    init(count: Int) {
        routeIDs = Int(ILK_BATCH_STATUS_SIZE) * count
        offsets = routeIDs + Int(ILK_BATCH_ROUTE_ID_SIZE) * count
        text = offsets + Int(ILK_BATCH_OFFSET_SIZE) * (count + 1)
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
        b.clear()
        let given = entryCount(UnsafeRawPointer(each).assumingMemoryBound(to: CChar.self), length)
        let count = entryCount(uris!, urisLength)
        return invalid("methods holds \(given) entries for \(count) URIs (give one for all, or one per URI)")
    }
    b.clear()
    var start = 0
    while start < urisLength {
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
                b.appendParameters()
                b.append(status: ILK_OK, routeID: b.matcher.routeID)
            case .notFound:
                b.append(status: ILK_NOT_FOUND, routeID: 0)
            case .methodNotAllowed:
                b.append(status: ILK_METHOD_NOT_ALLOWED, routeID: 0)
            }
        } catch {
            // A malformed method is an error for the whole batch (left empty rather than half
            // filled), also where the URI failed before the lookup reached the method.
            if error.code == .invalidArgument || error.code == .uri {
                do throws(InterlockError) {
                    if error.code == .invalidArgument { throw error }
                    try Matcher.checkMethod(method)
                } catch {
                    let i = b.count
                    b.clear()
                    if case .each = methods { return fail(InterlockError(.invalidArgument, "method \(i): \(error.message)", offset: error.offset)) }
                    return fail(error)
                }
            }
            error.description.withCString { b.appendText($0, strlen($0)) }
            b.append(status: status(error.code), routeID: 0)
        }
    }
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
    _ router: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ uris: UnsafePointer<CChar>?, _ urisGiven: Int,
    _ batch: OpaquePointer?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let b = handle(batch, as: BatchHandle.self) else { return invalid("batch is NULL") }
    guard let urisLength = size(urisGiven) else { return tooLarge("uris_len", urisGiven) }
    return matchAll(r, .one(method.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }), uris, urisLength, b)
}

@_cdecl("ilk_router_match_requests")
public func ilk_router_match_requests(
    _ router: OpaquePointer?, _ methods: UnsafePointer<CChar>?, _ methodsGiven: Int,
    _ uris: UnsafePointer<CChar>?, _ urisGiven: Int, _ batch: OpaquePointer?, _ view: UnsafeMutablePointer<ilk_match_batch_view>?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let b = handle(batch, as: BatchHandle.self) else { return invalid("batch is NULL") }
    guard let methodsLength = size(methodsGiven) else { return tooLarge("methods_len", methodsGiven) }
    guard let urisLength = size(urisGiven) else { return tooLarge("uris_len", urisGiven) }
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
        view.pointee = ilk_match_batch_view(count: b.count, first_error: b.firstError, data: b.image(), size: b.size)
    }
    return status
}

@_cdecl("ilk_match_batch_count")
public func ilk_match_batch_count(_ b: OpaquePointer?) -> Int { handle(b, as: BatchHandle.self)?.count ?? 0 }

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
    return UnsafeRawPointer(h.text).assumingMemoryBound(to: CChar.self)
}

@_cdecl("ilk_match_batch_copy")
public func ilk_match_batch_copy(
    _ b: OpaquePointer?, _ out: UnsafeMutableRawPointer?, _ room: Int, _ needed: UnsafeMutablePointer<Int>?
) -> Int32 {
    needed?.pointee = 0
    guard let h = handle(b, as: BatchHandle.self) else { return invalid("batch is NULL") }
    return copyOut(h.size, of: "the batch", to: out, room, needed, h.write(to:))
}
