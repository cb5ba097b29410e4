public import AuthCore
import Foundation

/// A JSON object from a service response, read with typed errors that name the missing or
/// malformed field (never a crash, never the value of a secret).
public struct JSONObject: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    // invariant: `values` holds only JSONSerialization output (immutable Foundation values).
    let values: [String: Any]
    let context: String

    init(_ values: [String: Any], context: String) {
        self.values = values
        self.context = context
    }

    /// Parses a response body.
    ///
    /// - Throws: `AuthCoreError.Code.malformedResponse` when the body is not a JSON object.
    public init(parsing bytes: [UInt8], context: String) throws(AuthCoreError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw AuthCoreError(.malformedResponse, "\(context): the response is not a JSON object")
        }
        self.init(object, context: context)
    }

    /// The context and the key names: values hold tokens, session strings and secret keys.
    public var description: String { "JSONObject(\(context), keys: \(values.keys.sorted().joined(separator: ", ")))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["context": context, "keys": values.keys.sorted()], displayStyle: .struct)
    }

    /// The keys, sorted.
    public var keys: [String] { values.keys.sorted() }

    /// Whether the key is present (and not null).
    public func has(_ key: String) -> Bool { values[key] != nil && !(values[key] is NSNull) }

    /// A required string.
    public func string(_ key: String) throws(AuthCoreError) -> String {
        guard let value = values[key] else { throw AuthCoreError(.malformedResponse, "\(context): missing \(key)") }
        guard let text = value as? String else { throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a string") }
        return text
    }

    /// An optional string (absent or null → nil; another type → error).
    public func optionalString(_ key: String) throws(AuthCoreError) -> String? {
        guard has(key) else { return nil }
        return try string(key)
    }

    /// A required number (JSON integer or fractional).
    public func number(_ key: String) throws(AuthCoreError) -> Double {
        guard let value = values[key] else { throw AuthCoreError(.malformedResponse, "\(context): missing \(key)") }
        guard !Self.isBoolean(value) else { throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a number") }
        if let number = value as? Int { return Double(number) }
        if let number = value as? Double { return number }
        throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a number")
    }

    /// A required whole number within `range` (`ExpiresIn`, `StatusCode`): a fraction, a number
    /// outside `range` (`1e300`, `-5`) or another type is an error that names the field, never a trap.
    public func integer(_ key: String, in range: ClosedRange<Int64>) throws(AuthCoreError) -> Int64 {
        guard let value = values[key] else { throw AuthCoreError(.malformedResponse, "\(context): missing \(key)") }
        let whole: Int64?
        if Self.isBoolean(value) {
            whole = nil
        } else if let number = value as? Int {
            whole = Int64(exactly: number)
        } else if let number = value as? Double {
            whole = Int64(exactly: number)
        } else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a number")
        }
        guard let whole, range.contains(whole) else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return whole
    }

    /// Whether a JSONSerialization value is a JSON `true`/`false`. Not `value is Bool`: on Linux the
    /// numbers 0 and 1 (NSNumber) cast to Bool too. JSON booleans are a native `Bool` there and
    /// `__NSCFBoolean` on Darwin.
    static func isBoolean(_ value: Any) -> Bool {
        type(of: value) == Bool.self || String(describing: type(of: value)) == "__NSCFBoolean"
    }

    /// A required nested object.
    public func object(_ key: String) throws(AuthCoreError) -> JSONObject {
        guard let value = values[key] else { throw AuthCoreError(.malformedResponse, "\(context): missing \(key)") }
        guard let object = value as? [String: Any] else { throw AuthCoreError(.malformedResponse, "\(context): \(key) is not an object") }
        return JSONObject(object, context: "\(context).\(key)")
    }

    /// An optional nested object.
    public func optionalObject(_ key: String) throws(AuthCoreError) -> JSONObject? {
        guard has(key) else { return nil }
        return try object(key)
    }

    /// A map of strings (`ChallengeParameters`).
    public func stringMap(_ key: String) throws(AuthCoreError) -> [String: String] {
        guard has(key) else { return [:] }
        guard let object = values[key] as? [String: Any] else { throw AuthCoreError(.malformedResponse, "\(context): \(key) is not an object") }
        var map: [String: String] = [:]
        for (name, value) in object {
            guard let text = value as? String else {
                throw AuthCoreError(.malformedResponse, "\(context): \(key).\(name) is not a string")
            }
            map[name] = text
        }
        return map
    }

    /// An optional boolean (absent or null → nil; another type, the numbers 0 and 1 included → error).
    public func optionalBool(_ key: String) throws(AuthCoreError) -> Bool? {
        guard has(key) else { return nil }
        guard let value = values[key], Self.isBoolean(value), let flag = value as? Bool else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a boolean")
        }
        return flag
    }

    /// An optional array of objects (absent or null → empty).
    public func optionalObjectArray(_ key: String) throws(AuthCoreError) -> [JSONObject] {
        guard has(key) else { return [] }
        guard let array = values[key] as? [Any] else { throw AuthCoreError(.malformedResponse, "\(context): \(key) is not an array") }
        var objects: [JSONObject] = []
        for (index, item) in array.enumerated() {
            guard let object = item as? [String: Any] else {
                throw AuthCoreError(.malformedResponse, "\(context): \(key)[\(index)] is not an object")
            }
            objects.append(JSONObject(object, context: "\(context).\(key)[\(index)]"))
        }
        return objects
    }

    /// An optional array of strings.
    public func stringArray(_ key: String) throws(AuthCoreError) -> [String] {
        guard has(key) else { return [] }
        guard let array = values[key] as? [Any] else { throw AuthCoreError(.malformedResponse, "\(context): \(key) is not an array") }
        var strings: [String] = []
        for (index, item) in array.enumerated() {
            guard let text = item as? String else { throw AuthCoreError(.malformedResponse, "\(context): \(key)[\(index)] is not a string") }
            strings.append(text)
        }
        return strings
    }
}

/// Serialises a request body (string, number, bool, nested maps and arrays).
func jsonBody(_ object: [String: Any]) throws(AuthCoreError) -> [UInt8] {
    guard JSONSerialization.isValidJSONObject(object), let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    else { throw AuthCoreError(.malformedRequest, "request body cannot be encoded as JSON") }
    return [UInt8](data)
}

/// Decodes a JSON-encoded string parameter (Cognito sends lists and maps as JSON strings inside
/// `ChallengeParameters`).
func decodeEmbeddedJSON(_ text: String, parameter: String) throws(AuthCoreError) -> Any {
    guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
        throw AuthCoreError(.malformedResponse, "\(parameter) is not valid JSON")
    }
    return value
}
