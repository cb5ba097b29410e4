public import AuthCore
import Foundation

/// A signed-in session as it is kept between launches: the pool and client it belongs to, the user,
/// the tokens and when they expire. `description` shows none of the tokens.
public struct CognitoStoredSession: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The region of the pool.
    public var region: String
    /// The user pool.
    public var userPoolId: String
    /// The app client.
    public var clientId: String
    /// The username Cognito knows the user by (the access token's `username` claim): `SECRET_HASH`
    /// of a refresh is computed with it.
    public var username: String
    /// The tokens.
    public var tokens: CognitoTokens
    /// When the ID and access tokens expire: the earliest of `ExpiresIn` after the answer and the
    /// tokens' `exp` claims.
    public var expiresAt: Timestamp
    /// How the user signed in, which decides how the tokens are refreshed.
    public var signInMethod: CognitoSignInMethod

    /// A session.
    public init(
        region: String,
        userPoolId: String,
        clientId: String,
        username: String,
        tokens: CognitoTokens,
        expiresAt: Timestamp,
        signInMethod: CognitoSignInMethod = .api
    ) {
        self.region = region
        self.userPoolId = userPoolId
        self.clientId = clientId
        self.username = username
        self.tokens = tokens
        self.expiresAt = expiresAt
        self.signInMethod = signInMethod
    }

    public var description: String {
        "CognitoStoredSession(\(userPoolId), client \(clientId), expiresAt: \(expiresAt))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["userPoolId": userPoolId, "clientId": clientId, "expiresAt": expiresAt.iso8601],
            displayStyle: .struct
        )
    }

    /// The session's JSON (format version 1), in wiping storage.
    public func encoded() throws(AuthCoreError) -> SecureBytes {
        var object: [String: JSONValue] = [
            "version": 1, "region": .string(region), "userPoolId": .string(userPoolId), "clientId": .string(clientId),
            "username": .string(username), "idToken": .string(tokens.idToken),
            "accessToken": .string(tokens.accessToken),
            "expiresAt": .string(expiresAt.iso8601),
        ]
        if let refreshToken = tokens.refreshToken { object["refreshToken"] = .string(refreshToken) }
        if case .hostedUI(let domain) = signInMethod {
            object["signInMethod"] = "hostedUI"
            object["hostedUIDomain"] = .string(domain.origin)
        }
        return try secretJSON(object)
    }

    /// A session from ``encoded()``'s JSON.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming the field that is missing or wrong.
    public init(decoding bytes: SecureBytes) throws(AuthCoreError) {
        self = try readingStoredInput { () throws(AuthCoreError) in try Self.decode(bytes) }
    }

    private static func decode(_ bytes: SecureBytes) throws(AuthCoreError) -> CognitoStoredSession {
        let object = try parseSecretJSON(bytes, context: "stored Cognito session")
        guard try object.integer("version", in: 1...1) == 1 else {
            throw AuthCoreError(.malformedInput, "unknown session version")
        }
        let expiresAt = try Timestamp(iso8601: object.string("expiresAt"))
        let tokens = CognitoTokens(
            idToken: try object.string("idToken"),
            accessToken: try object.string("accessToken"),
            refreshToken: try object.optionalString("refreshToken"),
            expiresIn: 0
        )
        let method: CognitoSignInMethod
        switch try object.optionalString("signInMethod") {
        case nil: method = .api
        case "hostedUI":
            do { method = .hostedUI(domain: try RequestURL(try object.string("hostedUIDomain"))) } catch {
                throw AuthCoreError(.malformedInput, "hostedUIDomain: \(error.reason)")
            }
        case let other?:
            throw AuthCoreError(.malformedInput, "unknown signInMethod '\(printableText(other, limit: 200))'")
        }
        return CognitoStoredSession(
            region: try object.string("region"),
            userPoolId: try object.string("userPoolId"),
            clientId: try object.string("clientId"),
            username: try object.string("username"),
            tokens: tokens,
            expiresAt: expiresAt,
            signInMethod: method
        )
    }
}

/// How a ``CognitoStoredSession``'s user signed in (Amplify's `SignInMethod`).
public enum CognitoSignInMethod: Sendable, Equatable {
    /// Through the Cognito Identity Provider API (``CognitoSignIn``): refreshed through the API.
    case api
    /// Through the hosted UI of `domain` (``CognitoHostedUI``): refreshed at its token endpoint.
    case hostedUI(domain: RequestURL)
}

/// Keeps the signed-in session of one user pool and app client between launches (in the shape of
/// ``CognitoDeviceStore``; an Apple app implements it over the keychain, see the README). Unlike the
/// device store its calls throw: a session that cannot be saved must not look saved.
public protocol CognitoTokenStore: Sendable {
    /// The stored session, if any.
    func session() async throws(AuthCoreError) -> CognitoStoredSession?
    /// Stores `session`, replacing the one before.
    func save(_ session: CognitoStoredSession) async throws(AuthCoreError)
    /// Forgets the session.
    func removeSession() async throws(AuthCoreError)
}

/// A ``CognitoTokenStore`` in memory (one process).
public actor InMemoryCognitoTokenStore: CognitoTokenStore {
    private var stored: CognitoStoredSession?
    /// An empty store.
    public init() {}
    public func session() async throws(AuthCoreError) -> CognitoStoredSession? { stored }
    public func save(_ session: CognitoStoredSession) async throws(AuthCoreError) { stored = session }
    public func removeSession() async throws(AuthCoreError) { stored = nil }
}

/// A ``CognitoTokenStore`` in one file per user pool and client (`SecretFile`: mode 0600, written
/// by atomic replace, the file's bytes wiped from memory after use). The session is read from the
/// file at every call, so several processes (the CLI) see each other's refreshes.
public actor FileCognitoTokenStore: CognitoTokenStore {
    /// The file.
    public nonisolated let file: SecretFile

    /// A store in `path`.
    public init(path: String) throws(AuthCoreError) { file = try SecretFile(path: path) }

    /// A store in `directory`, in the file `cognito-session-<poolId>-<clientId>.json`.
    public init(directory: String, configuration: CognitoUserPoolConfiguration) throws(AuthCoreError) {
        let name = "cognito-session-\(configuration.userPoolId)-\(configuration.clientId).json"
        guard name.utf8.allSatisfy({ $0 != UInt8(ascii: "/") }) else {
            throw AuthCoreError(.invalidParameter, "the pool or client id holds '/'")
        }
        file = try SecretFile(path: directory.hasSuffix("/") ? directory + name : directory + "/" + name)
    }

    public func session() async throws(AuthCoreError) -> CognitoStoredSession? {
        guard let bytes = try file.read() else { return nil }
        return try CognitoStoredSession(decoding: bytes)
    }

    public func save(_ session: CognitoStoredSession) async throws(AuthCoreError) {
        try file.write(try session.encoded())
    }

    public func removeSession() async throws(AuthCoreError) { try file.remove() }
}

/// A ``CognitoDeviceStore`` in a file (`SecretFile`), so remembered devices survive a restart: one
/// JSON map from username to device key, group key and password (Base64). Usernames are keyed by
/// their bytes — in the file as the hex of their UTF-8 (version 2), so two accounts whose names are
/// canonically equivalent Unicode (`jos\u{E9}`, `jose\u{301}`) keep their own devices; a version 1
/// file (names as JSON member names) is still read. The device store's calls do not throw: a
/// failure leaves the store as it was and is kept in ``lastError``.
public actor FileCognitoDeviceStore: CognitoDeviceStore {
    /// The file.
    public nonisolated let file: SecretFile
    /// The last failure to read or write the file.
    public private(set) var lastError: AuthCoreError?

    /// A store in `path`.
    public init(path: String) throws(AuthCoreError) { file = try SecretFile(path: path) }

    public func device(for username: String) async -> CognitoRememberedDevice? {
        do { return try devices()[Array(username.utf8)] } catch {
            lastError = error
            return nil
        }
    }

    public func save(_ device: CognitoRememberedDevice, for username: String) async {
        do {
            var all = try devices()
            all[Array(username.utf8)] = device
            try write(all)
        } catch { lastError = error }
    }

    public func removeDevice(for username: String) async {
        do {
            var all = try devices()
            guard all.removeValue(forKey: Array(username.utf8)) != nil else { return }
            try write(all)
        } catch { lastError = error }
    }

    private func devices() throws(AuthCoreError) -> [[UInt8]: CognitoRememberedDevice] {
        guard let bytes = try file.read() else { return [:] }
        return try readingStoredInput { () throws(AuthCoreError) in try Self.decode(bytes) }
    }

    private static func decode(_ bytes: SecureBytes) throws(AuthCoreError) -> [[UInt8]: CognitoRememberedDevice] {
        let object = try parseSecretJSON(bytes, context: "device store")
        let version = try object.integer("version", in: 1...2)
        var devices: [[UInt8]: CognitoRememberedDevice] = [:]
        let entries = try object.object("devices")
        for name in entries.keys {
            let entry = try entries.object(name)
            let password = try Base64.decode(try entry.string("devicePassword"), field: "devicePassword")
            // Version 2 names users by the hex of their bytes; version 1 by the name itself.
            let username: [UInt8]
            if version == 2 {
                do { username = try Hex.decode(name) } catch {
                    throw AuthCoreError(.malformedInput, "device store: a user key is not hexadecimal")
                }
            } else {
                username = Array(name.utf8)
            }
            devices[username] = CognitoRememberedDevice(
                deviceKey: try entry.string("deviceKey"),
                deviceGroupKey: try entry.string("deviceGroupKey"),
                devicePassword: SecureBytes(password)
            )
        }
        return devices
    }

    private func write(_ devices: [[UInt8]: CognitoRememberedDevice]) throws(AuthCoreError) {
        // bytes-lint: JSON member names of the file: the hex of each username's bytes (ASCII).
        var entries: [String: JSONValue] = [:]
        for (username, device) in devices {
            entries[Hex.encode(username)] = [
                "deviceKey": .string(device.deviceKey), "deviceGroupKey": .string(device.deviceGroupKey),
                "devicePassword": .string(device.devicePassword.withUnsafeBytes { Base64.encode($0) }),
            ]
        }
        try file.write(try secretJSON(["version": 2, "devices": .object(entries)]))
    }
}

/// Runs `body`, reporting a malformed field of a stored file as `AuthCoreError.Code.malformedInput`
/// (`JSONObject` reports service answers as malformed responses).
func readingStoredInput<T>(_ body: () throws(AuthCoreError) -> T) throws(AuthCoreError) -> T {
    do { return try body() } catch  where error.code == .malformedResponse {
        throw AuthCoreError(.malformedInput, error.reason)
    }
}

/// `object` as JSON in wiping storage; the encoder's output buffer is wiped.
func secretJSON(_ object: [String: JSONValue]) throws(AuthCoreError) -> SecureBytes {
    guard var data = try? ServiceJSON.encoder(keys: .asDeclared).encode(JSONValue.object(object)) else {
        throw AuthCoreError(.malformedRequest, "the store contents cannot be encoded as JSON")
    }
    let bytes = data.withUnsafeBytes { SecureBytes(copying: $0) }
    data.withUnsafeMutableBytes { wipeSecretMemory($0) }
    return bytes
}

/// Parses JSON held in wiping storage without another copy of the bytes.
func parseSecretJSON(_ bytes: SecureBytes, context: String) throws(AuthCoreError) -> JSONObject {
    let parsed: [String: JSONValue]? = bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
        let view = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: buffer.count, deallocator: .none)
        return (try? JSONDecoder().decode(JSONValue.self, from: view))?.objectMembers
    }
    guard let parsed else { throw AuthCoreError(.malformedInput, "\(context): not a JSON object") }
    return JSONObject(parsed, context: context)
}

extension InMemoryCognitoTokenStore: CustomReflectable {
    /// Nothing of the session (its tokens).
    public nonisolated var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .class) }
}

extension FileCognitoTokenStore: CustomReflectable {
    /// The path only.
    public nonisolated var customMirror: Mirror { Mirror(self, children: ["path": file.path], displayStyle: .class) }
}

extension FileCognitoDeviceStore: CustomReflectable {
    /// The path only.
    public nonisolated var customMirror: Mirror { Mirror(self, children: ["path": file.path], displayStyle: .class) }
}
