import Interlock

// The packed texts of the C interface, the one place they are written: ilk_request_packed,
// ilk_result_packed and the copies (ilk_result_copy, ilk_response_copy). Their grammar is stated
// once, in the header at ilk_result_packed; bindings/python/interlock/_wire.py is the one reader.

/// Text for hosts that pay per call (ilk_request_packed, ilk_result_packed): fields separated by
/// NUL bytes; an optional field is '1' and its value, or '0' alone; a list is its count, then its
/// items.
struct PackedText {
    /// The text as bytes: appending a string's UTF-8 to an array is a copy, where appending to a
    /// string and converting counts to strings cost more than the resolve itself.
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func put(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(0)
    }
    mutating func field(_ s: String?) {
        if let s { bytes.append(0x31); put(s) } else { bytes.append(0x30); bytes.append(0) }
    }
    /// A count (not negative), in decimal.
    mutating func number(_ n: Int) {
        var divisor = 1
        while divisor <= n / 10 { divisor *= 10 }
        var rest = n
        while divisor > 0 {
            bytes.append(0x30 + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
        bytes.append(0)
    }
    /// A response status, in decimal (a Swift callback may set any int; a resolve ends with an
    /// error if one outside 100...599 is left, but a later callback may read it first).
    mutating func status(_ n: Int) {
        if n < 0 { put("-" + String(-n)) } else { number(n) }
    }
    mutating func list(_ items: [String]) {
        number(items.count)
        for item in items { put(item) }
    }
    mutating func pairs<S: Sequence>(_ count: Int, _ items: S, _ body: (inout PackedText, S.Element) -> Void) {
        number(count)
        for item in items { body(&self, item) }
    }

    /// The fields of ilk_result_packed, in its order: everything in `r` but the body.
    init(resolution r: Resolution) {
        self.init()
        status(r.response.status)
        switch r.status {
        case .error(let message), .aborted(let message): field(message)
        default: field(nil)
        }
        pairs(r.response.headers.count, r.response.headers) { $0.put($1.name); $0.put($1.value) }
        let trace = r.trace
        pairs(trace.count, trace) { $0.put($1.stage.rawValue); $0.put($1.name); $0.put($1.decision) }
        list(r.redirects)
        if case .methodNotAllowed(let methods) = r.status { list(methods) } else { list([]) }
        request(r.request)
    }

    /// The fields of ilk_request_packed, in its order.
    mutating func request(_ q: Request) {
        field(q.uri); field(q.method); field(q.scheme); field(q.host); field(q.port); field(q.path)
        field(q.fragment); field(q.route?.pattern.source)
        if let route = q.route { bytes.append(0x31); number(Int(route.id)) } else { bytes.append(0x30); bytes.append(0) }
        let parameters = q.parameters
        pairs(parameters.count, parameters) { $0.put($1.name); $0.put($1.value) }
        let query = q.query.items
        pairs(query.count, query) { $0.put($1.key); $0.put($1.value) }
        let metadata = q.metadata
        if metadata.isEmpty { number(0) } else {
            pairs(metadata.count, metadata.sorted(by: { $0.key < $1.key })) { $0.put($1.key); $0.put($1.value) }
        }
    }
}

/// Writes what the `_copy` calls that carry a body (ilk_result_copy, ilk_response_copy) lay out:
/// the text's length as eight bytes, the text, then the body.
func writeCopy(_ text: [UInt8], _ body: [UInt8], to out: UnsafeMutableRawPointer) {
    out.storeBytes(of: UInt64(text.count), as: UInt64.self)
    text.withUnsafeBytes { if let b = $0.baseAddress { (out + 8).copyMemory(from: b, byteCount: $0.count) } }
    body.withUnsafeBytes { if let b = $0.baseAddress { (out + 8 + text.count).copyMemory(from: b, byteCount: $0.count) } }
}
