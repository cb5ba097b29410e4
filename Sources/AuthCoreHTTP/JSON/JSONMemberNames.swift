package import AuthCore
import Foundation

/// The members of one object of a JSON document with their names as bytes (RFC 8259 §4), for
/// documents whose names are identities (a verifier table's usernames): a reader keyed by Swift
/// `String` merges names that are canonically equivalent Unicode, and keeps one of two members
/// with the same name, silently; here every name comes out as written, in order, and a name
/// that appears twice in that object is refused.
package enum JSONMemberNames {
    /// The members of the object at `path` (member names from the root; objects only), each name
    /// unescaped to its UTF-8 bytes with its value as `JSONDecoder` reads it.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` when the document is not JSON, has no object
    ///   at `path`, or that object names a member twice.
    package static func members(
        of document: [UInt8],
        at path: [String]
    ) throws(AuthCoreError) -> [(name: [UInt8], value: JSONValue)] {
        var scanner = SecretJSONMembers.Scanner(paths: [], lowersFirstLetters: false)
        scanner.namesPath = path
        do throws(SecretJSONMembers.Scanner.Failure) {
            try document.withUnsafeBytesTyped { (bytes) throws(SecretJSONMembers.Scanner.Failure) in
                try scanner.scanDocument(bytes)
            }
        } catch {
            throw AuthCoreError(.malformedInput, error.reason)
        }
        var value: JSONValue? = try? JSONDecoder().decode(JSONValue.self, from: Data(document))
        for name in path {
            guard case .object(let members)? = value else {
                value = nil
                break
            }
            value = members[name]
        }
        guard case .object(let members)? = value else {
            throw AuthCoreError(.malformedInput, "no object at \(path.joined(separator: "."))")
        }
        return scanner.names.map { name in (name, members[String(decoding: name, as: UTF8.self)] ?? .null) }
    }

    /// The member names of the document's root object (none when the root is not an object), as
    /// written, in order: the scan alone, with no decoding.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` when the document is not JSON, nests too deep,
    ///   or an object names a member twice.
    package static func rootNames(of document: [UInt8]) throws(AuthCoreError) -> [[UInt8]] {
        try rootScan(of: document, keepingStrings: false).names
    }

    /// The members of the document's root object (none when the root is not an object), as
    /// written, in order, each with its value unescaped when it is a string (nil otherwise): the
    /// scan alone. The strings are bytes as the escapes give them; whether they are UTF-8 is the
    /// caller's to check.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` as ``rootNames(of:)``.
    package static func rootMembers(of document: [UInt8]) throws(AuthCoreError) -> [(name: [UInt8], string: [UInt8]?)] {
        let scanner = try rootScan(of: document, keepingStrings: true)
        return Array(zip(scanner.names, scanner.strings))
    }

    private static func rootScan(
        of document: [UInt8],
        keepingStrings: Bool
    ) throws(AuthCoreError) -> SecretJSONMembers.Scanner {
        var scanner = SecretJSONMembers.Scanner(paths: [], lowersFirstLetters: false)
        scanner.namesPath = []
        scanner.keepsStrings = keepingStrings
        do throws(SecretJSONMembers.Scanner.Failure) {
            try document.withUnsafeBytesTyped { (bytes) throws(SecretJSONMembers.Scanner.Failure) in
                try scanner.scanDocument(bytes)
            }
        } catch {
            throw AuthCoreError(.malformedInput, error.reason)
        }
        return scanner
    }
}
