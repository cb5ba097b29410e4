/// Why one vector case failed: the first field that differs, or a field that is missing or malformed.
public struct CaseFailure: Error, Sendable, Equatable {
    /// The field (dotted path inside the case, e.g. `expect.signature`).
    public let field: String
    /// What the file says (or the problem, for a malformed case).
    public let expected: String
    /// What AuthCore computed.
    public let got: String
    /// Set for structural problems (missing or malformed input), where expected/got do not apply.
    public let problem: String?

    /// A computed value that differs from the expected one.
    public static func mismatch(_ field: String, expected: String, got: String) -> CaseFailure {
        CaseFailure(field: field, expected: expected, got: got, problem: nil)
    }

    /// A required field that is absent.
    public static func missing(_ field: String) -> CaseFailure {
        CaseFailure(field: field, expected: "", got: "", problem: "missing required field")
    }

    /// A field whose value cannot be used.
    public static func invalid(_ field: String, _ problem: String) -> CaseFailure {
        CaseFailure(field: field, expected: "", got: "", problem: problem)
    }

    /// The text after `case NAME: ` in a FAIL line.
    public var message: String {
        if let problem { return "\(field): \(problem)" }
        return "\(field): expected \(expected) got \(got)"
    }
}
