public import AuthCore

/// The app's side of an SRP-6a login to an app server that runs AuthCoreServer's endpoints
/// (`authcore serve`): the password never leaves the device, and the session token is accepted
/// only once the server has proven it knows the verifier (`M2`, RFC 2945 §3, checked in constant time).
///
/// ```swift
/// let client = try SRPLoginClient(server: try RequestURL("https://app.example.com"))
/// let session = try await client.login(username: "alice", password: password)
/// // Authorization: Bearer <session.token> on /distribute-token.json, /oss/sign, …
/// ```
///
/// The two round trips are also separate calls (``begin(username:password:deviceToken:)`` and
/// ``finish(_:)``), for a client that must finish on another instance, or prepare while the user types.
public struct SRPLoginClient: Sendable {
    /// The server's base URL (`/srp/begin` and `/srp/finish` are under it).
    public let server: RequestURL
    /// The parameters this client insists on: a server naming others (a smaller group) is refused.
    public let configuration: SRPConfiguration
    /// Whether plain `http` may be used to a host that is not loopback.
    public let allowInsecureHTTP: Bool
    let transport: any HTTPTransport

    /// A client for `server` with RFC 5054's 3072-bit group and SHA-256 unless told otherwise.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for plain http to a host that is not
    ///   loopback without `allowInsecureHTTP`.
    public init(
        server: RequestURL,
        configuration: SRPConfiguration? = nil,
        transport: any HTTPTransport = HTTP1Transport(),
        allowInsecureHTTP: Bool = false
    ) throws(AuthCoreError) {
        try NetworkPolicy.requireSecureTransport(server, allowInsecureHTTP: allowInsecureHTTP)
        self.server = server
        if let configuration {
            self.configuration = configuration
        } else {
            self.configuration = try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256)
        }
        self.transport = transport
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    /// Both round trips.
    ///
    /// - Parameters:
    ///   - username: who logs in.
    ///   - password: the password (it never leaves this process).
    ///   - deviceToken: the ``SRPLoginResult/deviceToken`` of this user's last login on this device,
    ///     if the app kept it: the server then counts this device's failures apart from anyone
    ///     else's, so guesses at the user from elsewhere never lock this device out.
    /// - Throws: see ``begin(username:password:deviceToken:)`` and ``finish(_:)``.
    public func login(
        username: String,
        password: SecureBytes,
        deviceToken: SecureBytes? = nil
    ) async throws(AuthCoreError) -> SRPLoginResult {
        try await finish(try await begin(username: username, password: password, deviceToken: deviceToken))
    }

    /// The first round trip: sends `A` (and the device token, if any), answers the challenge, and
    /// returns what the second needs.
    ///
    /// - Throws: `AuthCoreError` `.serviceError` with the server's code (`TooManyFailures`, …);
    ///   `.malformedResponse` for an answer that is not the endpoint's JSON; `.unsupported` when the
    ///   server names other SRP parameters; `.unsafePublicValue` for a `B` the client must refuse.
    public func begin(
        username: String,
        password: SecureBytes,
        deviceToken: SecureBytes? = nil
    ) async throws(AuthCoreError) -> SRPPendingLogin {
        let client = SRPClient(configuration: configuration)
        let ephemeral = try client.makeEphemeral()
        let a = Hex.encode(ephemeral.publicValue.minimalBigEndianBytes)
        let context = "srp/begin answer"
        let request = SRPLoginWire.BeginRequest(
            username: username,
            clientPublicValue: a,
            deviceToken: deviceToken.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        )
        let answer = try ServiceJSON.decode(
            SRPLoginWire.BeginAnswer.self,
            from: try await post("srp/begin", request),
            context: context,
            keys: .asDeclared
        )
        let (group, hash) = (answer.group, answer.hash)
        guard (1...65_536).contains(group) else {
            throw AuthCoreError(.malformedResponse, "\(context): group is not a whole number in 1...65536")
        }
        guard group == configuration.group.byteCount * 8, hash == configuration.hash.name else {
            throw AuthCoreError(
                .unsupported,
                "\(context): the server uses a \(group)-bit group with \(hash); this client insists on \(configuration.group.byteCount * 8) bits with \(configuration.hash.name)"
            )
        }
        let salt: [UInt8]
        let b: [UInt8]
        do {
            salt = try Hex.decode(answer.salt)
            b = try Hex.decode(answer.serverPublicValue)
        } catch { throw AuthCoreError(.malformedResponse, "\(context): salt and B must be hexadecimal") }
        let session = try client.processChallenge(
            username: Array(username.utf8),
            password: password,
            salt: salt,
            serverPublicValue: b,
            ephemeral: ephemeral
        )
        return SRPPendingLogin(loginId: answer.loginId, username: username, session: session)
    }

    /// The second round trip: sends `M1`, checks `M2`, and only then takes the session token.
    ///
    /// - Throws: `AuthCoreError` `.serviceError` with the server's code (`ProofMismatch` for a
    ///   wrong password, `LoginExpired`, `TooManyFailures`); `.proofMismatch` when the server's
    ///   `M2` is wrong (it does not know the verifier); `.malformedResponse`.
    public func finish(_ login: SRPPendingLogin) async throws(AuthCoreError) -> SRPLoginResult {
        let answer = try ServiceJSON.decode(
            SRPLoginWire.FinishAnswer.self,
            from: try await post(
                "srp/finish",
                SRPLoginWire.FinishRequest(loginId: login.loginId, clientProof: Hex.encode(login.session.clientProof))
            ),
            context: "srp/finish answer",
            keys: .asDeclared
        )
        let m2: [UInt8]
        do { m2 = try Hex.decode(answer.serverProof) } catch {
            throw AuthCoreError(.malformedResponse, "srp/finish answer: M2 must be hexadecimal")
        }
        let key = try login.session.verifyServerProof(m2)
        // The session only once M2 has verified: a server that cannot prove the verifier gets a
        // proof mismatch, whatever else its answer lacks.
        guard let token = answer.sessionToken, let expiresText = answer.expiresAt else {
            throw AuthCoreError(.malformedResponse, "srp/finish answer: missing sessionToken or expiresAt")
        }
        let expiresAt: Timestamp
        do { expiresAt = try Timestamp(iso8601: expiresText) } catch {
            throw AuthCoreError(.malformedResponse, "srp/finish answer: expiresAt is not an ISO 8601 time")
        }
        return SRPLoginResult(
            sessionToken: SecureBytes(Array(token.utf8)),
            username: login.username,
            expiresAt: expiresAt,
            sessionKey: key,
            deviceToken: answer.deviceToken.map { SecureBytes(Array($0.utf8)) }
        )
    }

    private func post(_ path: String, _ body: some Encodable) async throws(AuthCoreError) -> [UInt8] {
        let base =
            server.absoluteString.utf8.last == UInt8(ascii: "/") ? server.absoluteString : server.absoluteString + "/"
        let request = HTTPRequest(
            method: "POST",
            url: try RequestURL(base + path),
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")],
            body: try ServiceJSON.encode(body, keys: .asDeclared),
            maximumResponseBytes: 65_536,
            allowsInsecureHTTP: allowInsecureHTTP
        )
        let response = try await transport.send(request)
        guard response.status == 200 else { throw response.serviceError() }
        return response.body.plainBytes
    }
}

/// A login between its two round trips: the id the server gave it and the client's proof, ready
/// to be sent to any instance of the server.
public struct SRPPendingLogin: Sendable, CustomStringConvertible {
    /// The server's handle of this login.
    public let loginId: String
    /// Who is logging in.
    public let username: String
    let session: SRPClientSession

    public var description: String { "SRPPendingLogin(\(username), \(loginId))" }
}

/// A finished login: the app session and the SRP key both sides now share.
public struct SRPLoginResult: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The bearer token for the server's other endpoints (secret).
    public let sessionToken: SecureBytes
    /// Who logged in.
    public let username: String
    /// When the server stops accepting the token.
    public let expiresAt: Timestamp
    /// `K`, the SRP session key (secret).
    public let sessionKey: SecureBytes
    /// The device token for this user's next logins from this device (secret; nil from a server
    /// that gives none): pass it to ``SRPLoginClient/login(username:password:deviceToken:)``.
    public let deviceToken: SecureBytes?

    /// The bearer header value for the server's other endpoints.
    public var authorizationHeader: HTTPHeader {
        HTTPHeader("Authorization", "Bearer " + sessionToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
    }

    /// The user and expiry, never the token or the key.
    public var description: String { "SRPLoginResult(\(username), until \(expiresAt.iso8601))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "expiresAt": expiresAt], displayStyle: .struct)
    }
}
