public import AuthCore
public import AuthCoreHTTP

/// The server's rules for where a request's body ends (RFC 9112 §6), applied to the head before a
/// body byte is read. A request that two readers could frame differently — the server and a proxy
/// in front of it — is refused with `400` and its connection closed, so no second request can be
/// smuggled inside a first:
/// - `Content-Length` more than once, even with equal values (§6.3: a recipient may accept equal
///   duplicates, but one that does not is never wrong);
/// - `Content-Length` with `Transfer-Encoding` (§6.1: "ought to be handled as an error");
/// - `Transfer-Encoding` more than once, or other than exactly `chunked` (the only coding the
///   server decodes; §6.1 lets it answer 501, but a refused framing is a 400 like the others);
/// - a `Content-Length` that is not 1…18 decimal digits (the number is read on bytes);
/// - `Host` more than once (RFC 9112 §3.2: a server must answer 400);
/// - a folded line (obs-fold, §5.2). libmicrohttpd 0.9.75 accepts folds and appends the folded text
///   to the field's *name* (`X-A: one⏎ two` reaches the server as a field `X-Atwo` with the value
///   `one`; `Content-Length: 5⏎ 0` as `Content-Length0`), so a fold shows as a name that is not a
///   token (RFC 9110 §5.1: the folded text held a space or a colon) or a framing field's name with
///   more after it; both are refused. A fold of one word into a field the server does not read
///   (`X-Atwo`) cannot be told from a field of that name, and changes nothing the server reads.
/// - a field that breaks HTTP's one rule for fields (`HTTPHeader.validate`: a token name; a value of
///   visible bytes, spaces and tabs, with no CR, LF, NUL or other control byte).
public enum RequestFraming {
    /// The refusal for a head that breaks a rule above; nil for one that frames unambiguously.
    public static func refusal(_ headers: [HTTPHeader]) -> HTTPResponse? {
        let lengths = headers.filter { $0.hasName("content-length") }
        let codings = headers.filter { $0.hasName("transfer-encoding") }
        func refused(_ why: String) -> HTTPResponse {
            jsonErrorResponse(status: 400, code: "MalformedRequest", message: why)
        }
        if lengths.count > 1 { return refused("Content-Length appears more than once") }
        if !lengths.isEmpty, !codings.isEmpty { return refused("Content-Length and Transfer-Encoding together") }
        if codings.count > 1 { return refused("Transfer-Encoding appears more than once") }
        if let coding = codings.first, !equalIgnoringASCIICase(trimmed(Array(coding.value.utf8))[...], "chunked".utf8) {
            return refused("the only Transfer-Encoding accepted is chunked")
        }
        if let length = lengths.first, decimal(length.value) == nil {
            return refused("Content-Length is not a decimal number")
        }
        if headers.filter({ $0.hasName("host") }).count > 1 { return refused("Host appears more than once") }
        let folded = headers.contains { field in
            !HTTPHeader.isFieldName(field.name)
                || framingNames.contains { name in
                    field.name.utf8.count > name.utf8.count
                        && equalIgnoringASCIICase(field.name.utf8.prefix(name.utf8.count), name.utf8)
                }
        }
        if folded { return refused("a header field is folded or its name is not a token (obs-fold is not accepted)") }
        if headers.contains(where: { !HTTPHeader.isFieldValue($0.value) }) {
            return refused("a header field value holds a control character (obs-fold is not accepted)")
        }
        return nil
    }

    /// The fields that frame a request: a name that starts with one and goes on is a fold.
    private static let framingNames = ["content-length", "transfer-encoding", "host"]

    /// The declared body length, for a head ``refusal(_:)`` accepted (nil without the field).
    static func contentLength(_ headers: [HTTPHeader]) -> Int? {
        headers.first { $0.hasName("content-length") }.flatMap { decimal($0.value) }
    }

    /// 1…18 ASCII digits (optional spaces or tabs around), as a number.
    private static func decimal(_ text: String) -> Int? {
        let digits = trimmed(Array(text.utf8))
        guard (1...18).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        return Array(bytes.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
