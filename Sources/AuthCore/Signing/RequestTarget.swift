/// A request target in origin form (`/path?query`, RFC 9112 §3.2.1) split at its first `?`, on
/// bytes: the one place a target is split. ``RequestURL`` splits its target with it and the signers'
/// requests (``SigV4Request``, ``OSSRequest``) take it, so a target given as a URL is split once,
/// never joined and split again.
public struct RequestTarget: Sendable, Hashable, CustomStringConvertible {
    /// The path as written (percent-escapes kept).
    public let path: String
    /// The raw query without `?`; empty when there is none.
    public let query: String

    /// A target's parts as they are (from a parser that split them: a path holding `?` would be
    /// read differently once joined).
    package init(path: String, query: String) {
        self.path = path
        self.query = query
    }

    /// `target` split at its first `?` (read as a byte: a `?` joined to a neighbour in one grapheme
    /// cluster still delimits, as it does for every other reader of the request line).
    public init(_ target: String) {
        let bytes = target.utf8
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else {
            self.init(path: target, query: "")
            return
        }
        self.init(path: String(target[..<mark]), query: String(target[bytes.index(after: mark)...]))
    }

    /// The split of bytes already in hand (``RequestURL``'s parser).
    package init(bytes target: ArraySlice<UInt8>) {
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else {
            self.init(path: String(decoding: target, as: UTF8.self), query: "")
            return
        }
        self.init(
            path: String(decoding: target[..<mark], as: UTF8.self),
            query: String(decoding: target[(mark + 1)...], as: UTF8.self)
        )
    }

    /// `path`, then `?query` when there is a query: the request line's target.
    public var description: String { query.isEmpty ? path : "\(path)?\(query)" }
}
