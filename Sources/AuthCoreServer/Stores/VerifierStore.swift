public import AuthCore
import Foundation

/// The app's user database as a login service sees it: a username's salt and SRP verifier.
public protocol VerifierStore: Sendable {
    /// The stored verifier for `username` matched as exact UTF-8 bytes (no case folding, no Unicode
    /// normalisation), or nil when there is no such user.
    func verifier(for username: String) async throws(AuthCoreError) -> SRPVerifier?
}

/// A ``VerifierStore`` over a fixed table (tests, small deployments, the reference server).
///
/// Reads the JSON that `authcore srp verifier` prints, one entry per user:
/// `{"users": {"alice": {"salt_hex": "…", "verifier_hex": "…"}, …}}`.
public struct StaticVerifierStore: VerifierStore {
    // Keyed by UTF-8 bytes: Swift's String equality would match canonically equivalent spellings.
    private let table: [[UInt8]: SRPVerifier]

    /// A store over `table`.
    public init(_ table: [String: SRPVerifier]) {
        self.table = Dictionary(table.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// A store read from a JSON file of at most 16 MiB.
    ///
    /// - Throws: `AuthCoreError` `.malformedInput` naming the file and what is wrong (never a value),
    ///   `.inputTooLarge` for a larger file.
    public init(contentsOfFile path: String) throws(AuthCoreError) {
        try self.init(json: try ConfigurationFile.read(path, limit: 16 << 20, what: "verifier file"), source: path)
    }

    /// A store from the JSON bytes described above.
    public init(json: [UInt8], source: String = "verifier table") throws(AuthCoreError) {
        struct Entry: Decodable {
            let salt_hex: String
            let verifier_hex: String
        }
        struct File: Decodable { let users: [String: Entry] }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: Data(json)) } catch {
            throw AuthCoreError(.malformedInput, "\(source): not {\"users\": {name: {\"salt_hex\", \"verifier_hex\"}}}")
        }
        var table: [[UInt8]: SRPVerifier] = [:]
        for (name, entry) in file.users {
            do {
                table[Array(name.utf8)] = SRPVerifier(salt: try Hex.decode(entry.salt_hex), verifier: try BigUInt(hex: entry.verifier_hex))
            } catch {
                throw AuthCoreError(.malformedInput, "\(source): user '\(name)' has a salt or verifier that is not hexadecimal")
            }
        }
        self.table = table
    }

    public func verifier(for username: String) throws(AuthCoreError) -> SRPVerifier? { table[Array(username.utf8)] }
}
