public import AuthCore

/// A passkey authenticator in software, over OpenSSL's P-256 (ES256, COSE algorithm -7): what a
/// platform authenticator does (W3C Web Authentication Level 3 §6), for tests and the CLI. Its keys
/// live in memory and go with it.
///
/// - Registration (§6.3.2): a fresh key pair and a 32-byte credential id; `authenticatorData` is
///   `SHA-256(rpId) ‖ flags (UP|UV|AT) ‖ signCount 0 ‖ AAGUID (zero) ‖ idLength ‖ id ‖ COSE_Key`
///   (§6.1, RFC 9053 §7.1.1's EC2 key), in an attestation object of format `none` or `packed`
///   self-attestation (§8.2: `sig` = ECDSA over `authenticatorData ‖ SHA-256(clientDataJSON)`).
/// - Assertion (§6.3.3): the signature count goes up by one; `authenticatorData` is
///   `SHA-256(rpId) ‖ flags (UP|UV) ‖ signCount`, the signature ECDSA (DER) over it followed by
///   `SHA-256(clientDataJSON)`.
///
/// As a browser does, it writes `clientDataJSON` (`type`, `challenge`, `origin`, `crossOrigin`)
/// itself, with its own ``origin``, and refuses an RP id that is not the origin's host or a parent
/// domain of it (§5.1.3 step 8, §5.1.4.1 step 7; an IP address only as itself, and never a
/// single label such as `com`).
///
/// - Warning: It asserts user presence and user verification (flags UP and UV) without asking
///   anyone, and its keys are in memory: it stands in for a platform authenticator in tests and
///   tools. An app's users need a real one (on Apple platforms, `ASAuthorization`'s passkeys).
public actor SoftwareWebAuthnAuthenticator: WebAuthnAuthenticator {
    /// The attestation a registration carries.
    public enum Attestation: Sendable {
        /// Format `none` (an empty statement).
        case none
        /// Format `packed`, self-attestation: signed with the credential's own key (§8.2).
        case packedSelf
    }

    struct Credential {
        let id: [UInt8]
        let key: P256KeyPair
        let rpId: String
        let userHandle: [UInt8]
        var signCount: UInt32
    }

    /// The web origin the ceremonies run for (`https://example.com`).
    public private(set) var origin: String
    private var originHost: String
    /// The attestation registrations carry.
    public let attestation: Attestation
    private let random: any SecureRandomGenerator
    /// In order of creation; identities are the credential ids' bytes.
    private var credentials: [Credential] = []

    /// An authenticator for `origin` (an `https` origin, or `http` on a loopback host).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for an origin that is not `scheme://host[:port]`.
    public init(
        origin: String,
        attestation: Attestation = .none,
        random: any SecureRandomGenerator = SystemRandom()
    ) throws(AuthCoreError) {
        (self.origin, self.originHost) = try Self.checkedOrigin(origin)
        self.attestation = attestation
        self.random = random
    }

    /// The ids of the credentials made, in order (base64url).
    public var credentialIds: [String] { credentials.map { Base64.encode($0.id, alphabet: .urlSafe) } }

    /// Runs later ceremonies for another origin (tests of a relying party's origin check).
    package func setOrigin(_ newOrigin: String) throws(AuthCoreError) {
        (origin, originHost) = try Self.checkedOrigin(newOrigin)
    }

    /// An RP id whose hash assertions carry instead of the credential's (tests of a relying party's
    /// RP id check; nil: the credential's own, as an authenticator must).
    private var reportedRPID: String?

    /// Makes later assertions carry `rpId`'s hash (nil: the credential's own).
    package func setReportedRPID(_ rpId: String?) { reportedRPID = rpId }

    /// Sets a credential's signature count (tests of a relying party's counter check).
    package func setSignCount(_ count: UInt32, forCredentialAt index: Int) {
        guard credentials.indices.contains(index) else { return }
        credentials[index].signCount = count
    }

    // MARK: - Ceremonies

    public func createCredential(options: [UInt8]) async throws(AuthCoreError) -> [UInt8] {
        let parsed = try JSONObject(parsing: options, context: "credential creation options")
        let challenge = try Self.base64URL(parsed, "challenge")
        let rp = try parsed.object("rp")
        let rpId = try rp.optionalString("id") ?? originHost
        try checkRelyingParty(rpId)
        let user = try parsed.object("user")
        let userHandle = try Self.base64URL(user, "id")
        var algorithms: [Int64] = []
        for parameter in try parsed.optionalObjectArray("pubKeyCredParams") {
            algorithms.append(try parameter.integer("alg", in: Int64(Int32.min)...Int64(Int32.max)))
        }
        guard algorithms.isEmpty || algorithms.contains(-7) else {
            throw AuthCoreError(
                .unsupported,
                "the relying party accepts none of this authenticator's algorithms (ES256, -7)"
            )
        }
        for excluded in try parsed.optionalObjectArray("excludeCredentials") {
            let id = try Self.base64URL(excluded, "id")
            if credentials.contains(where: { $0.rpId == rpId && $0.id == id }) {
                throw AuthCoreError(
                    .invalidParameter,
                    "this authenticator already holds a credential the relying party excludes"
                )
            }
        }

        let key = try P256KeyPair(random: random)
        let id = try random.secureBytes(count: 32).withUnsafeBytes { Array($0) }
        var cose = CBORWriter()
        cose.mapHead(5)
        cose.integer(1)
        cose.integer(2)  // kty: EC2
        cose.integer(3)
        cose.integer(-7)  // alg: ES256
        cose.integer(-1)
        cose.integer(1)  // crv: P-256
        cose.integer(-2)
        cose.byteString(key.publicKeyX)
        cose.integer(-3)
        cose.byteString(key.publicKeyY)
        var authenticatorData = Self.rpIdHash(rpId) + [0x45] + [0, 0, 0, 0]  // UP | UV | AT, count 0
        authenticatorData += [UInt8](repeating: 0, count: 16)  // AAGUID
        authenticatorData += [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id + cose.bytes
        let clientData = clientDataJSON(type: "webauthn.create", challenge: challenge)

        var object = CBORWriter()
        object.mapHead(3)
        object.text("fmt")
        switch attestation {
        case .none:
            object.text("none")
            object.text("attStmt")
            object.mapHead(0)
        case .packedSelf:
            object.text("packed")
            object.text("attStmt")
            let signed = authenticatorData + SHA256.hash(bytes: clientData).bytes
            let signature = try signed.withUnsafeBytesTyped { (bytes) throws(AuthCoreError) in
                try key.signature(for: bytes)
            }
            object.mapHead(2)
            object.text("alg")
            object.integer(-7)
            object.text("sig")
            object.byteString(signature)
        }
        object.text("authData")
        object.byteString(authenticatorData)

        credentials.append(Credential(id: id, key: key, rpId: rpId, userHandle: userHandle, signCount: 0))
        let encodedId = Base64.encode(id, alphabet: .urlSafe)
        let response: JSONValue = [
            "id": .string(encodedId), "rawId": .string(encodedId), "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": .object([:]),
            "response": [
                "clientDataJSON": .string(Base64.encode(clientData, alphabet: .urlSafe)),
                "attestationObject": .string(Base64.encode(object.bytes, alphabet: .urlSafe)),
                "authenticatorData": .string(Base64.encode(authenticatorData, alphabet: .urlSafe)),
                "transports": ["internal"],
                "publicKeyAlgorithm": -7,
            ],
        ]
        return try ServiceJSON.encode(response, keys: .asDeclared)
    }

    public func getAssertion(options: [UInt8]) async throws(AuthCoreError) -> [UInt8] {
        let parsed = try JSONObject(parsing: options, context: "credential request options")
        let challenge = try Self.base64URL(parsed, "challenge")
        let rpId = try parsed.optionalString("rpId") ?? originHost
        try checkRelyingParty(rpId)
        var allowed: [[UInt8]] = []
        for descriptor in try parsed.optionalObjectArray("allowCredentials") {
            allowed.append(try Self.base64URL(descriptor, "id"))
        }
        // The newest usable credential: one the list allows, or (an empty list) any for this RP.
        guard
            let index = credentials.indices.last(where: {
                credentials[$0].rpId == rpId && (allowed.isEmpty || allowed.contains(credentials[$0].id))
            })
        else {
            throw AuthCoreError(
                .credentialsUnavailable,
                "this authenticator holds no credential for \(rpId) that the relying party allows"
            )
        }
        credentials[index].signCount &+= 1
        let credential = credentials[index]
        let count = credential.signCount
        let authenticatorData =
            Self.rpIdHash(reportedRPID ?? rpId) + [0x05] + [
                UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF),
            ]
        let clientData = clientDataJSON(type: "webauthn.get", challenge: challenge)
        let signed = authenticatorData + SHA256.hash(bytes: clientData).bytes
        let signature = try signed.withUnsafeBytesTyped { (bytes) throws(AuthCoreError) in
            try credential.key.signature(for: bytes)
        }
        let encodedId = Base64.encode(credential.id, alphabet: .urlSafe)
        let response: JSONValue = [
            "id": .string(encodedId), "rawId": .string(encodedId), "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": .object([:]),
            "response": [
                "clientDataJSON": .string(Base64.encode(clientData, alphabet: .urlSafe)),
                "authenticatorData": .string(Base64.encode(authenticatorData, alphabet: .urlSafe)),
                "signature": .string(Base64.encode(signature, alphabet: .urlSafe)),
                "userHandle": .string(Base64.encode(credential.userHandle, alphabet: .urlSafe)),
            ],
        ]
        return try ServiceJSON.encode(response, keys: .asDeclared)
    }

    // MARK: - Pieces

    /// `{"type":…,"challenge":…,"origin":…,"crossOrigin":false}` (§5.8.1's members, in the order
    /// browsers write them); the challenge re-encoded as base64url without padding.
    private func clientDataJSON(type: String, challenge: [UInt8]) -> [UInt8] {
        // The origin was checked to be printable ASCII without quotes or backslashes: no escaping.
        Array(
            #"{"type":"\#(type)","challenge":"\#(Base64.encode(challenge, alphabet: .urlSafe))","origin":"\#(origin)","crossOrigin":false}"#
                .utf8
        )
    }

    private func checkRelyingParty(_ rpId: String) throws(AuthCoreError) {
        let host = Array(originHost.utf8)
        let id = Array(rpId.utf8)
        // A parent domain: a suffix after a dot, of at least two labels, and never of an IP address.
        let isAddress =
            host.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }
            || host.contains(UInt8(ascii: ":"))
        let isParent =
            !isAddress && id.contains(UInt8(ascii: ".")) && host.count > id.count
            && host.suffix(id.count).elementsEqual(id)
            && host[host.count - id.count - 1] == UInt8(ascii: ".")
        guard !id.isEmpty, host == id || isParent else {
            throw AuthCoreError(
                .invalidParameter,
                "the RP id \(printableText(rpId, limit: 200)) is not \(originHost) or a parent domain of it"
            )
        }
    }

    private static func rpIdHash(_ rpId: String) -> [UInt8] { SHA256.hash(bytes: Array(rpId.utf8)).bytes }

    private static func base64URL(_ object: JSONObject, _ key: String) throws(AuthCoreError) -> [UInt8] {
        do { return try Base64.decode(try object.string(key), alphabet: .urlSafe, field: key) } catch {
            throw AuthCoreError(.malformedInput, "WebAuthn options: \(key): \(error.reason)")
        }
    }

    /// The origin as it goes into `clientDataJSON` (`scheme://host[:port]`, lower-cased) and its host,
    /// for `scheme://host[:port]`: https, or http on loopback.
    static func checkedOrigin(_ origin: String) throws(AuthCoreError) -> (origin: String, host: String) {
        guard origin.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"\"\\?#".utf8.contains($0) }),
            let url = try? RequestURL(origin), url.query.isEmpty, url.path == "/",
            !origin.utf8.reversed().starts(with: [UInt8(ascii: "/")]),
            url.scheme == "https" || NetworkPolicy.isLoopback(host: url.host)
        else {
            throw AuthCoreError(
                .invalidParameter,
                "the origin must be https://host[:port] (http only on loopback), without a path, query or fragment"
            )
        }
        let host = String(decoding: url.host.utf8.map(asciiLowercase), as: UTF8.self)
        return ("\(url.scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")", host)
    }
}
