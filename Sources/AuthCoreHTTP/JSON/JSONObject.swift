public import AuthCore
import Foundation

/// A JSON object from a service response, read with typed errors that name the missing or
/// malformed field (never a crash, never the value of a secret).
///
/// A reader over `JSONValue` (decoded by `JSONDecoder`): the dynamic documents (JWT headers and
/// claims, stored sessions, `amplify_outputs.json`, Cognito user-pool answers); fixed-shape answers
/// are `Codable` types (`ServiceJSON`).
public struct JSONObject: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    // bytes-lint: JSON member names of dynamic documents, looked up by fixed ASCII names; identities are read with
    // JSONMemberNames.
    let values: [String: JSONValue]
    let context: String

    // bytes-lint: JSON member names of dynamic documents, looked up by fixed ASCII names; identities are read with
    // JSONMemberNames.
    package init(_ values: [String: JSONValue], context: String) {
        self.values = values
        self.context = context
    }

    /// Parses a response body.
    ///
    /// - Throws: `AuthCoreError.Code.malformedResponse` when the body is not a JSON object.
    public init(parsing bytes: [UInt8], context: String) throws(AuthCoreError) {
        guard let members = (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)))?.objectMembers else {
            throw AuthCoreError(.malformedResponse, "\(context): the response is not a JSON object")
        }
        self.init(members, context: context)
    }

    /// The object as a value (to store or print it again).
    public var value: JSONValue { .object(values) }

    /// The context and the key names: values hold tokens, session strings and secret keys.
    public var description: String { "JSONObject(\(context), keys: \(values.keys.sorted().joined(separator: ", ")))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["context": context, "keys": values.keys.sorted()], displayStyle: .struct)
    }

    /// The keys, sorted.
    public var keys: [String] { values.keys.sorted() }

    /// Whether the key is present (and not null).
    public func has(_ key: String) -> Bool {
        guard let value = values[key] else { return false }
        return value != .null
    }

    /// A required string.
    public func string(_ key: String) throws(AuthCoreError) -> String {
        guard let value = values[key] else { throw AuthCoreError(.malformedResponse, "\(context): missing \(key)") }
        guard case .string(let text) = value else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a string")
        }
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
        switch value {
        case .integer(let number): return Double(number)
        case .number(let number): return number
        default: throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a number")
        }
    }

    /// A required whole number within `range` (`ExpiresIn`, `StatusCode`): a fraction, a number
    /// outside `range` (`1e300`, `-5`) or another type is an error that names the field, never a trap.
    public func integer(_ key: String, in range: ClosedRange<Int64>) throws(AuthCoreError) -> Int64 {
        guard let value = values[key] else { throw AuthCoreError(.malformedResponse, "\(context): missing \(key)") }
        let whole: Int64?
        switch value {
        case .integer(let number): whole = Int64(exactly: number)
        case .number(let number): whole = Int64(exactly: number)
        default: throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a number")
        }
        guard let whole, range.contains(whole) else {
            throw AuthCoreError(
                .malformedResponse,
                "\(context): \(key) is not a whole number in \(range.lowerBound)...\(range.upperBound)"
            )
        }
        return whole
    }

    /// A required nested object.
    public func object(_ key: String) throws(AuthCoreError) -> JSONObject {
        guard let value = values[key] else { throw AuthCoreError(.malformedResponse, "\(context): missing \(key)") }
        guard case .object(let members) = value else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not an object")
        }
        return JSONObject(members, context: "\(context).\(key)")
    }

    /// An optional nested object.
    public func optionalObject(_ key: String) throws(AuthCoreError) -> JSONObject? {
        guard has(key) else { return nil }
        return try object(key)
    }

    // bytes-lint: JSON member names of dynamic documents, looked up by fixed ASCII names; identities are read with
    // JSONMemberNames.
    /// A map of strings (`ChallengeParameters`).
    public func stringMap(_ key: String) throws(AuthCoreError) -> [String: String] {
        guard has(key) else { return [:] }
        guard case .object(let members)? = values[key] else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not an object")
        }
        // bytes-lint: JSON member names of dynamic documents, looked up by fixed ASCII names; identities are read with
        // JSONMemberNames.
        var map: [String: String] = [:]
        for (name, value) in members {
            guard case .string(let text) = value else {
                throw AuthCoreError(.malformedResponse, "\(context): \(key).\(name) is not a string")
            }
            map[name] = text
        }
        return map
    }

    /// An optional boolean (absent or null → nil; another type, the numbers 0 and 1 included → error).
    public func optionalBool(_ key: String) throws(AuthCoreError) -> Bool? {
        guard has(key) else { return nil }
        guard case .bool(let flag)? = values[key] else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not a boolean")
        }
        return flag
    }

    /// An optional array of objects (absent or null → empty).
    public func optionalObjectArray(_ key: String) throws(AuthCoreError) -> [JSONObject] {
        guard has(key) else { return [] }
        guard case .array(let array)? = values[key] else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not an array")
        }
        var objects: [JSONObject] = []
        for (index, item) in array.enumerated() {
            guard case .object(let members) = item else {
                throw AuthCoreError(.malformedResponse, "\(context): \(key)[\(index)] is not an object")
            }
            objects.append(JSONObject(members, context: "\(context).\(key)[\(index)]"))
        }
        return objects
    }

    /// An optional array of strings.
    public func stringArray(_ key: String) throws(AuthCoreError) -> [String] {
        guard has(key) else { return [] }
        guard case .array(let array)? = values[key] else {
            throw AuthCoreError(.malformedResponse, "\(context): \(key) is not an array")
        }
        var strings: [String] = []
        for (index, item) in array.enumerated() {
            guard case .string(let text) = item else {
                throw AuthCoreError(.malformedResponse, "\(context): \(key)[\(index)] is not a string")
            }
            strings.append(text)
        }
        return strings
    }
}

/// Decodes a JSON-encoded string parameter (Cognito sends lists and maps as JSON strings inside
/// `ChallengeParameters`).
package func decodeEmbeddedJSON(_ text: String, parameter: String) throws(AuthCoreError) -> JSONValue {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
        throw AuthCoreError(.malformedResponse, "\(parameter) is not valid JSON")
    }
    return value
}
