package import AuthCore
package import Foundation

/// The JSON of the typed service edges: `Codable` request and response types (`CognitoIdentityAPI`,
/// the token-vending answer, service error bodies), encoded with sorted keys, decoded with errors
/// that name the operation and the field path — never a value (answers carry tokens and secret
/// keys), never a trap.
///
/// Foundation's `JSONDecoder` already refuses what must be refused: a number that does not fit the
/// field's type (`1e300` or `1.5` for an `Int`), `0`/`1` for a `Bool`, a string for a number.
///
/// The AWS JSON APIs spell every member in PascalCase (`AuthenticationResult`, `IdentityPoolId`):
/// the types use the Swift names (`authenticationResult`) and the coder converts the first letter,
/// so a type needs no `CodingKeys`. The keys of maps (`Logins`, `ChallengeParameters`,
/// `ClientMetadata`) are never converted.
package enum ServiceJSON {
    /// How member names are spelled on the wire.
    package enum Keys {
        /// PascalCase: the AWS JSON APIs and the token-vending answer.
        case pascalCase
        /// As the Swift coding keys are (bodies read field by field, such as error bodies).
        case asDeclared
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package static func pascalCase(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }
    package static func camelCase(_ name: String) -> String { name.prefix(1).lowercased() + name.dropFirst() }

    /// The body of a request.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` when a value cannot be encoded.
    package static func encode(_ value: some Encodable, keys: Keys = .pascalCase) throws(AuthCoreError) -> [UInt8] {
        do { return [UInt8](try encoder(keys: keys).encode(value)) } catch {
            throw AuthCoreError(.malformedRequest, "request body cannot be encoded as JSON")
        }
    }

    /// The package's one JSON encoder set-up: compact, keys sorted, `/` escaped (as
    /// JSONSerialization wrote them; scripts compare the CLI's lines), member names per `keys`.
    /// Request bodies, stored files, the app server's answers and the CLI's output use it.
    package static func encoder(keys: Keys) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if keys == .pascalCase {
            encoder.keyEncodingStrategy = .custom { path in Key(stringValue: pascalCase(path.last?.stringValue ?? "")) }
        }
        return encoder
    }

    /// An answer of `type`; an empty body reads as `{}`.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedResponse`` naming `context` and the field.
    package static func decode<T: Decodable>(
        _ type: T.Type,
        from bytes: [UInt8],
        context: String,
        keys: Keys = .pascalCase
    ) throws(AuthCoreError)
        -> T
    {
        let decoder = JSONDecoder()
        if keys == .pascalCase {
            decoder.keyDecodingStrategy = .custom { path in Key(stringValue: camelCase(path.last?.stringValue ?? "")) }
        }
        do { return try decoder.decode(T.self, from: bytes.isEmpty ? Data("{}".utf8) : Data(bytes)) } catch let error
            as DecodingError
        {
            throw AuthCoreError(.malformedResponse, "\(context): \(describe(error, keys: keys))")
        } catch {
            throw AuthCoreError(.malformedResponse, "\(context): the answer is not JSON")
        }
    }

    /// An answer of `type` whose members at `paths` (wire names, outermost first) are secrets:
    /// they are taken out of `body`, which the transport delivered in wiping storage, into
    /// ``SecureBytes`` before the decoder sees the rest (``SecretJSONMembers``), so the decoder's
    /// copies hold no secret. `type` declares those members as ``RedactedSecret``.
    ///
    /// - Returns: the answer, and each path's secret (nil where the member is absent or not a string).
    /// - Throws: ``AuthCoreError/Code/malformedResponse`` naming `context` and the field.
    package static func decode<T: Decodable>(
        _ type: T.Type,
        from body: SecureBytes,
        secretMembers paths: [[String]],
        context: String,
        keys: Keys = .pascalCase
    ) throws(AuthCoreError) -> (answer: T, secrets: [SecureBytes?]) {
        guard !body.isEmpty else {
            return (try decode(T.self, from: [], context: context, keys: keys), paths.map { _ in nil })
        }
        let members = try SecretJSONMembers(parsing: body, paths: paths, context: context, keys: keys)
        return (try decode(T.self, from: members.redacted, context: context, keys: keys), members.values)
    }

    /// What went wrong and where, from the error's kind and coding path only (a decoding error's own
    /// description may quote the value).
    package static func describe(_ error: DecodingError, keys spelling: Keys = .asDeclared) -> String {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = (codingPath + (last.map { [$0] } ?? [])).map { key in
                key.intValue.map { "[\($0)]" }
                    ?? (spelling == .pascalCase ? pascalCase(key.stringValue) : key.stringValue)
            }
            return keys.isEmpty ? "the answer" : keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context.codingPath, key))"
        case .valueNotFound(_, let context): return "missing \(path(context.codingPath))"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) is not \(typeName(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the answer is not a JSON object" }
            let reason =
                context.debugDescription.hasPrefix("AuthCore: ")
                ? String(context.debugDescription.dropFirst(10)) : "is out of range"
            return "\(path(context.codingPath)) \(reason)"
        @unknown default: return "the answer does not have the expected shape"
        }
    }

    package static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [String: String].Type: "a map of strings"
        case is Timestamp.Type: "a date-time or a number"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}

/// A time an answer gives as ISO 8601 (with or without fractional seconds) or as epoch seconds (a
/// JSON number, possibly fractional): `Expiration` in Cognito identity and token-vending answers.
package struct ServiceTimestamp: Decodable, Sendable {
    package let value: Timestamp

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let time = try? Timestamp(iso8601: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "AuthCore: is not an ISO 8601 date-time"
                )
            }
            value = time
        } else if let seconds = try? container.decode(Double.self) {
            guard let time = Timestamp(checkedEpochSeconds: seconds) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "AuthCore: is outside the years 0001-9999"
                )
            }
            value = time
        } else {
            throw DecodingError.typeMismatch(
                Timestamp.self,
                .init(codingPath: decoder.codingPath, debugDescription: "AuthCore: is not a date-time or a number")
            )
        }
    }
}

/// The place of a secret member in a decoded answer: its value was taken out before decoding
/// (``ServiceJSON/decode(_:from:secretMembers:context:keys:)``), so the decoder must find `""`
/// there; anything else means the member was not taken out, and is refused rather than read. A
/// number or a missing member is named by the decoder as for any field.
package struct RedactedSecret: Decodable, Sendable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard try container.decode(String.self).isEmpty else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "AuthCore: was not taken out of the answer before decoding"
            )
        }
    }
}

/// A whole number an answer must give within a range (`StatusCode`).
package struct BoundedInteger<Bounds: IntegerBounds>: Decodable, Sendable {
    package let value: Int64

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let number = try? container.decode(Int64.self), Bounds.range.contains(number) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "AuthCore: is not a whole number in \(Bounds.range.lowerBound)...\(Bounds.range.upperBound)"
            )
        }
        value = number
    }
}

/// The range of a ``BoundedInteger``.
package protocol IntegerBounds: Sendable { static var range: ClosedRange<Int64> { get } }

/// An HTTP-like status code, 0...999.
package enum StatusCodeBounds: IntegerBounds { package static var range: ClosedRange<Int64> { 0...999 } }
