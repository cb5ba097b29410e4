public import AuthCore

/// Typed, failure-reporting access to the fields of one vector case.
public struct VectorCase: Sendable {
    /// The case's JSON object.
    public let json: JSONValue
    /// The case name (or `#index` when the file gives none).
    public let name: String

    init(json: JSONValue, index: Int) {
        self.json = json
        if case .string(let name)? = json["name"] { self.name = name } else { self.name = "#\(index)" }
    }

    /// The value at a dotted path, or nil.
    public func value(_ path: String) -> JSONValue? {
        var current: JSONValue? = json
        for part in path.split(separator: ".") { current = current?[String(part)] }
        return current
    }

    /// Whether a value is present at the path.
    public func has(_ path: String) -> Bool { value(path) != nil }

    /// A required string.
    public func string(_ path: String) throws(CaseFailure) -> String {
        guard let value = value(path) else { throw .missing(path) }
        guard case .string(let text) = value else { throw .invalid(path, "expected a string, found \(value.typeName)") }
        return text
    }

    /// An optional string.
    public func optionalString(_ path: String) throws(CaseFailure) -> String? {
        guard has(path) else { return nil }
        return try string(path)
    }

    /// A required integer.
    public func integer(_ path: String) throws(CaseFailure) -> Int {
        guard let value = value(path) else { throw .missing(path) }
        switch value {
        case .integer(let n): return n
        case .number(let d) where d == d.rounded() && abs(d) < 9e15: return Int(d)
        default: throw .invalid(path, "expected an integer, found \(value.typeName)")
        }
    }

    /// An optional integer.
    public func optionalInteger(_ path: String) throws(CaseFailure) -> Int? {
        guard has(path) else { return nil }
        return try integer(path)
    }

    /// An optional boolean.
    public func optionalBool(_ path: String) throws(CaseFailure) -> Bool? {
        guard let value = value(path) else { return nil }
        guard case .bool(let flag) = value else { throw .invalid(path, "expected a boolean, found \(value.typeName)") }
        return flag
    }

    /// Required hex bytes (empty allowed: an empty message or salt is meaningful).
    public func hexBytes(_ path: String) throws(CaseFailure) -> [UInt8] {
        let text = try string(path)
        do { return try Hex.decode(text, field: path, allowEmpty: true) } catch {
            throw .invalid(path, error.reason)
        }
    }

    /// A required big integer in hex (any length, leading zeros allowed).
    public func bigInteger(_ path: String) throws(CaseFailure) -> BigUInt {
        let text = try string(path)
        do { return try BigUInt(hex: text, field: path) } catch { throw .invalid(path, error.reason) }
    }

    /// The names of the fields present in `expect`; throws when there is none (a case that checks nothing).
    public func expectedFields(allowed: Set<String>) throws(CaseFailure) -> [String] {
        guard let expect = value("expect") else { throw .missing("expect") }
        guard case .object(let members) = expect else {
            throw .invalid("expect", "expected an object, found \(expect.typeName)")
        }
        guard !members.isEmpty else { throw .invalid("expect", "no expected values (at least one is required)") }
        for key in members.keys.sorted() where !allowed.contains(key) {
            throw .invalid("expect.\(key)", "unknown field for this kind")
        }
        return members.keys.sorted()
    }

    /// Compares hex bytes, ignoring case.
    /// Runs `body`, which computes from the case's inputs: a ``CaseFailure`` passes through, any other
    /// error makes the case invalid at `field` (an ``AuthCore/AuthCoreError`` as its reason, prefixed by
    /// its code when `withCode`).
    func evaluating<T>(_ field: String, withCode: Bool = false, _ body: () throws -> T) throws(CaseFailure) -> T {
        do {
            return try body()
        } catch let failure as CaseFailure {
            throw failure
        } catch let error as AuthCoreError {
            throw .invalid(field, withCode ? "\(error.code): \(error.reason)" : error.reason)
        } catch {
            throw .invalid(field, "\(error)")
        }
    }

    public func checkHex(_ field: String, expected: String, got: [UInt8]) throws(CaseFailure) {
        let gotHex = Hex.encode(got)
        guard expected.lowercased() == gotHex else { throw .mismatch(field, expected: expected, got: gotHex) }
    }

    /// Compares a number given in hex (any case, any leading zeros) with a computed value.
    public func checkNumber(_ field: String, expected: String, got: BigUInt) throws(CaseFailure) {
        let want: BigUInt
        do { want = try BigUInt(hex: expected, field: field) } catch { throw .invalid(field, error.reason) }
        guard want == got else { throw .mismatch(field, expected: expected, got: got.hexLowercased) }
    }

    /// Compares text exactly.
    public func checkText(_ field: String, expected: String, got: String) throws(CaseFailure) {
        guard expected == got else { throw .mismatch(field, expected: expected, got: got) }
    }
}

extension HashAlgorithm {
    /// Reads an `alg`/`hash` field.
    static func fromVector(_ c: VectorCase, _ path: String) throws(CaseFailure) -> HashAlgorithm {
        let name = try c.string(path)
        do { return try HashAlgorithm(named: name) } catch { throw .invalid(path, error.reason) }
    }
}
