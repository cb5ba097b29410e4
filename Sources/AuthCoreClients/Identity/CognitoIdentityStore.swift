public import AuthCore

/// Keeps the identity id of each identity pool between launches, so an unauthenticated user keeps
/// one identity instead of getting a new one at every start (the SDKs keep it in the keychain or
/// shared preferences). Its calls throw: an id that cannot be saved must not look saved.
public protocol CognitoIdentityStore: Sendable {
    /// The saved identity id of `identityPoolId`, if any.
    func identityId(forPool identityPoolId: String) async throws(AuthCoreError) -> String?
    /// Saves `identityId` for `identityPoolId`, replacing the one before.
    func save(identityId: String, forPool identityPoolId: String) async throws(AuthCoreError)
    /// Forgets the identity id of `identityPoolId`.
    func removeIdentityId(forPool identityPoolId: String) async throws(AuthCoreError)
}

/// A ``CognitoIdentityStore`` in memory (one process).
public actor InMemoryCognitoIdentityStore: CognitoIdentityStore {
    private var ids: [String: String] = [:]
    /// An empty store.
    public init() {}
    public func identityId(forPool identityPoolId: String) async throws(AuthCoreError) -> String? {
        ids[identityPoolId]
    }
    public func save(identityId: String, forPool identityPoolId: String) async throws(AuthCoreError) {
        ids[identityPoolId] = identityId
    }
    public func removeIdentityId(forPool identityPoolId: String) async throws(AuthCoreError) {
        ids[identityPoolId] = nil
    }
}

/// A ``CognitoIdentityStore`` with one file per identity pool in a directory,
/// `cognito-identity-<poolId>.json` (`SecretFile`: mode 0600, atomic replace, owner and mode
/// checked on reading). The file is read at every call, so several processes (the CLI) share it.
public actor FileCognitoIdentityStore: CognitoIdentityStore {
    /// The directory.
    public nonisolated let directory: String

    /// A store in `directory` (which must exist).
    public init(directory: String) throws(AuthCoreError) {
        guard !directory.isEmpty, !directory.utf8.contains(0) else {
            throw AuthCoreError(.invalidParameter, "the identity store directory is empty or holds NUL")
        }
        self.directory = directory
    }

    /// The file of `identityPoolId`.
    public nonisolated func file(forPool identityPoolId: String) throws(AuthCoreError) -> SecretFile {
        // A pool id is `<region>:<uuid>`; anything that could leave the directory is refused.
        guard !identityPoolId.isEmpty, identityPoolId.utf8.count <= 128,
            identityPoolId.utf8.allSatisfy({
                $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\")
            })
        else { throw AuthCoreError(.invalidParameter, "'\(identityPoolId.prefix(40))' is not an identity pool id") }
        let name = "cognito-identity-\(identityPoolId).json"
        return try SecretFile(path: directory.hasSuffix("/") ? directory + name : directory + "/" + name)
    }

    public func identityId(forPool identityPoolId: String) async throws(AuthCoreError) -> String? {
        guard let bytes = try file(forPool: identityPoolId).read() else { return nil }
        return try readingStoredInput { () throws(AuthCoreError) -> String in
            let object = try parseSecretJSON(bytes, context: "stored Cognito identity")
            guard try object.integer("version", in: 1...1) == 1 else {
                throw AuthCoreError(.malformedInput, "unknown identity store version")
            }
            guard try object.string("identityPoolId") == identityPoolId else {
                throw AuthCoreError(
                    .malformedInput,
                    "stored Cognito identity: the file belongs to another identity pool"
                )
            }
            let id = try object.string("identityId")
            guard !id.isEmpty else {
                throw AuthCoreError(.malformedInput, "stored Cognito identity: identityId is empty")
            }
            return id
        }
    }

    public func save(identityId: String, forPool identityPoolId: String) async throws(AuthCoreError) {
        let file = try file(forPool: identityPoolId)
        try file.write(
            try secretJSON(["version": 1, "identityPoolId": .string(identityPoolId), "identityId": .string(identityId)])
        )
    }

    public func removeIdentityId(forPool identityPoolId: String) async throws(AuthCoreError) {
        try file(forPool: identityPoolId).remove()
    }
}

extension FileCognitoIdentityStore: CustomReflectable {
    /// The directory only.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["directory": directory], displayStyle: .class)
    }
}
