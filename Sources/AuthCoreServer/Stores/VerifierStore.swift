public import AuthCore
import AuthCoreHTTP

/// The app's user database as a login service sees it: a username's salt and SRP verifier.
public protocol VerifierStore: Sendable {
    /// The stored verifier for `username` matched as exact UTF-8 bytes (no case folding, no Unicode
    /// normalisation), or nil when there is no such user.
    ///
    /// For unknown users to be indistinguishable, a lookup should take the same work whether or not
    /// the user exists, every salt should have one length (``uniformSaltByteCount``), and every
    /// verifier must be in 2…N−2.
    func verifier(for username: String) async throws(AuthCoreError) -> SRPVerifier?

    /// The one length of every stored salt, which unknown users' decoy salts then take; nil when
    /// the store cannot promise one (decoys then take `SRPConfiguration.saltByteCount`).
    var uniformSaltByteCount: Int? { get }

    /// The lookup as the login service makes it: always a verifier, and whether it is `username`'s
    /// (for an unknown user, any other entry of the same shape), so that the service does the same
    /// work with it either way. A store that can find any entry in the same work should return one.
    func lookup(_ username: String) async throws(AuthCoreError) -> VerifierLookup
}

/// What ``VerifierStore/lookup(_:)`` found.
public struct VerifierLookup: Sendable {
    /// The user's verifier when ``isEnrolled``, else a stand-in the service does not use (other than
    /// to do the same work).
    public let verifier: SRPVerifier
    /// Whether ``verifier`` is the user's.
    public let isEnrolled: Bool

    /// A lookup's result.
    public init(verifier: SRPVerifier, isEnrolled: Bool) {
        self.verifier = verifier
        self.isEnrolled = isEnrolled
    }
}

extension VerifierStore {
    /// No promise: decoys take the configuration's salt length.
    public var uniformSaltByteCount: Int? { nil }

    /// ``verifier(for:)``, with an empty stand-in for an unknown user.
    public func lookup(_ username: String) async throws(AuthCoreError) -> VerifierLookup {
        guard let stored = try await verifier(for: username) else {
            return VerifierLookup(verifier: SRPVerifier(salt: [], verifier: BigUInt()), isEnrolled: false)
        }
        return VerifierLookup(verifier: stored, isEnrolled: true)
    }
}

/// A ``VerifierStore`` over a fixed table (tests, small deployments, the reference server), checked
/// when it is made, and looked up in the same work for every name.
///
/// Reads the JSON that `authcore srp verifier` prints, one entry per user:
/// `{"users": {"alice": {"salt_hex": "…", "verifier_hex": "…"}, …}}`. A table is refused when:
/// - a verifier is outside 2…N−2: 0 and N are not verifiers, and 1 or N−1 would let anyone log in
///   without the password (`S = A^b` or `±A^b`, which the client can compute from `B − k`);
/// - the salts do not all have one length (an unknown user's decoy salt takes that length, so the
///   salt's length must not tell an enrolled user from an unknown one);
/// - two names are the same bytes, or canonically equivalent Unicode (`jos\u{E9}` and
///   `jose\u{301}`): a reader that normalises names (JSON decoders keyed by Swift `String` do)
///   would silently keep one of the two, and the other account could never log in;
/// - (read from a file) the file is not a regular file of this user that no one else may read or
///   write: a verifier is open to an offline guess of the password.
///
/// Lookups compare SHA-256 digests of the names with a binary search of a fixed number of steps
/// and branch-free comparisons, so an enrolled and an unknown name take the same instructions
/// (`make ct-count`, `login-begin`).
public struct StaticVerifierStore: VerifierStore {
    /// `SHA-256(name)`, sorted, beside their entries.
    private let digests: [Digest]
    private let entries: [SRPVerifier]
    public let uniformSaltByteCount: Int?

    /// A store over `entries` (usernames as exact bytes).
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming the rule an entry breaks (see the type).
    public init(
        _ entries: [(username: String, verifier: SRPVerifier)],
        configuration: SRPConfiguration,
        source: String = "verifier table"
    )
        throws(AuthCoreError)
    {
        // Canonically equivalent names are found by what Swift's String equality is: canonical
        // equivalence. bytes-lint: String keys on purpose, to find names that are equal as Strings.
        var spellings: [String: [UInt8]] = [:]
        var saltByteCount: Int?
        var rows: [(Digest, SRPVerifier)] = []
        for (name, verifier) in entries {
            let bytes = Array(name.utf8)
            guard !bytes.isEmpty, bytes.count <= 65_535 else {
                throw AuthCoreError(.malformedInput, "\(source): a username is empty or longer than 65535 bytes")
            }
            if let earlier = spellings.updateValue(bytes, forKey: name) {
                throw AuthCoreError(
                    .malformedInput,
                    earlier == bytes
                        ? "\(source): user '\(Self.shown(bytes))' appears twice"
                        : "\(source): users '\(Self.shown(earlier))' and '\(Self.shown(bytes))' are canonically equivalent Unicode (normalise names when enrolling)"
                )
            }
            guard let verifier = configuration.verifierAtModulusWidth(verifier),
                configuration.isAcceptableVerifier(verifier)
            else {
                throw AuthCoreError(
                    .malformedInput,
                    "\(source): user '\(Self.shown(bytes))' has a verifier outside 2...N-2 for the \(configuration.group.modulus.bitWidth)-bit group"
                )
            }
            guard !verifier.salt.isEmpty, verifier.salt.count <= 1024 else {
                throw AuthCoreError(
                    .malformedInput,
                    "\(source): user '\(Self.shown(bytes))' has an empty or over-long salt"
                )
            }
            if let length = saltByteCount, length != verifier.salt.count {
                throw AuthCoreError(
                    .malformedInput,
                    "\(source): salts of \(length) and \(verifier.salt.count) bytes: every salt must have one length (decoys for unknown users take it)"
                )
            }
            saltByteCount = verifier.salt.count
            rows.append((SHA256.hash(bytes: bytes), verifier))
        }
        rows.sort { $0.0.bytes.lexicographicallyPrecedes($1.0.bytes) }
        digests = rows.map(\.0)
        self.entries = rows.map(\.1)
        uniformSaltByteCount = saltByteCount
    }

    // bytes-lint: a caller's dictionary; the pairs initialiser is the one that sees equivalent names.
    /// A store over `table`.
    ///
    /// - Throws: as the initialiser over pairs (`malformedInput` naming the rule an entry breaks).
    public init(_ table: [String: SRPVerifier], configuration: SRPConfiguration) throws(AuthCoreError) {
        try self.init(table.map { (username: $0.key, verifier: $0.value) }, configuration: configuration)
    }

    /// A store read from a JSON file of at most 16 MiB, with the file checks of a secret file
    /// (`SecretFile`: a regular file of this user, not a symlink, mode 0600 or stricter).
    ///
    /// - Throws: `AuthCoreError` `.malformedInput` naming the file and what is wrong (never a value),
    ///   `.invalidParameter` for a file others may read or write, `.inputTooLarge` for a larger file.
    public init(contentsOfFile path: String, configuration: SRPConfiguration) throws(AuthCoreError) {
        guard let contents = try SecretFile(path: path, byteLimit: 16 << 20).read() else {
            throw AuthCoreError(.malformedInput, "verifier file \(path) does not exist")
        }
        try self.init(json: contents.withUnsafeBytes { Array($0) }, configuration: configuration, source: path)
    }

    /// A store from the JSON bytes described above. Member names are read as bytes, never through a
    /// String-keyed dictionary.
    ///
    /// - Throws: `.malformedInput` for JSON of another shape, and as the initialiser over pairs.
    public init(json: [UInt8], configuration: SRPConfiguration, source: String = "verifier table") throws(AuthCoreError)
    {
        let shape = "\(source): not {\"users\": {name: {\"salt_hex\", \"verifier_hex\"}}}"
        let users: [(name: [UInt8], value: JSONValue)]
        do { users = try JSONMemberNames.members(of: json, at: ["users"]) } catch {
            throw AuthCoreError(.malformedInput, "\(shape) (\(error.reason))")
        }
        var entries: [(username: String, verifier: SRPVerifier)] = []
        for (name, value) in users {
            let shown = Self.shown(name)
            guard case .object(let fields) = value, fields.count == 2, case .string(let saltHex)? = fields["salt_hex"],
                case .string(let verifierHex)? = fields["verifier_hex"]
            else {
                throw AuthCoreError(
                    .malformedInput,
                    "\(source): user '\(shown)' is not {\"salt_hex\", \"verifier_hex\"}"
                )
            }
            do {
                var verifierBytes = try Hex.decodeNumber(verifierHex)
                defer { verifierBytes.secureZeroize() }
                entries.append(
                    (
                        String(decoding: name, as: UTF8.self),
                        SRPVerifier(salt: try Hex.decode(saltHex), verifierBytes: verifierBytes)
                    )
                )
            } catch {
                throw AuthCoreError(
                    .malformedInput,
                    "\(source): user '\(shown)' has a salt or verifier that is not hexadecimal"
                )
            }
        }
        try self.init(entries, configuration: configuration, source: source)
    }

    /// The entry whose name has `username`'s bytes, nil for an unknown name.
    public func verifier(for username: String) -> SRPVerifier? {
        let found = lookup(username)
        return found.isEnrolled ? found.verifier : nil
    }

    /// The entry whose name has `username`'s bytes, or for an unknown name the entry where it would
    /// be: a branch-free lower bound over the sorted digests (the loop's trip count depends only on
    /// the table's size; each step's comparison and move are computed, not branched on), one
    /// constant-time equality, and the entry read either way.
    public func lookup(_ username: String) -> VerifierLookup {
        guard !digests.isEmpty else {
            return VerifierLookup(verifier: SRPVerifier(salt: [], verifier: BigUInt()), isEnrolled: false)
        }
        let target = SHA256.hash(bytes: Array(username.utf8))
        return target.withUnsafeBytes { target in
            var base = 0
            var remaining = digests.count
            while remaining > 1 {
                let half = remaining / 2
                let below = digests[base + half].withUnsafeBytes { constantTimeLessThan($0, target) }
                base += half & (0 &- below)
                remaining -= half
            }
            let below = digests[base].withUnsafeBytes { constantTimeLessThan($0, target) }
            // Past the last digest only when the target is above them all: clamped without a branch.
            let index = base + below - (((digests.count - 1 - base - below) >> (Int.bitWidth - 1)) & 1)
            let found = digests[index].withUnsafeBytes { constantTimeEqual($0, target) }
            return VerifierLookup(verifier: entries[index], isEnrolled: found)
        }
    }

    /// Printable ASCII of a name for a message (others as `?`, at most 64 bytes).
    static func shown(_ name: [UInt8]) -> String {
        String(
            decoding: name.prefix(64).map { (0x20...0x7E).contains($0) && $0 != 0x27 ? $0 : UInt8(ascii: "?") },
            as: UTF8.self
        )
    }
}
