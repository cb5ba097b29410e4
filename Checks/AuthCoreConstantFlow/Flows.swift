import AuthCore
import AuthCoreServer

/// One checked flow: a name and the work, which must not branch on, index by or pass to a system
/// call any secret it has not declassified.
struct Flow: Sendable {
    let name: String
    let run: @Sendable () throws -> Void
}

let username = Array("alice@example.com".utf8)

/// The flows `make ctgrind` runs (design.md "Testing strategy"; issue 11 lists them).
let flows: [Flow] = [
    Flow(name: "srp6a.handshake.3072.sha256") {
        try handshake(
            try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256),
            password: "correct horse battery staple"
        )
    },
    Flow(name: "srp6a.handshake.2048.sha256.padded-proofs") {  // K = H(PAD(S)): S's length is not declassified
        try handshake(
            try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256, proofPadsG: true, proofPadding: .padded),
            password: "padded proofs"
        )
    },
    Flow(name: "srp6a.handshake.2048.sha1") {
        try handshake(try SRPConfiguration(group: .rfc5054Group2048, hash: .sha1), password: "Tr0ub4dor&3")
    },
    Flow(name: "srp6a.handshake.4096.sha512.e1024") {  // exponents beyond the comb's reach: mpn_sec_powm
        try handshake(
            try SRPConfiguration(group: .rfc5054Group4096, hash: .sha512, privateValueBitCount: 1024),
            password: "a passphrase for the long-exponent flow"
        )
    },
    // issue 17: b leaves the process sealed, another server finishes
    Flow(name: "srp6a.server-state.sealed+resumed.3072") {
        try handshake(
            try SRPConfiguration(group: .rfc5054Group3072, hash: .sha256),
            password: "resumed elsewhere",
            resumingFromSealedState: true
        )
    },
    // Groups whose N is not a multiple of 64 bits long (issue 42): v, S and the exported state are
    // held at N's limb count, so a zero top word is never looked at.
    Flow(name: "srp6a.handshake.1535.sha256.padded-proofs") {
        try handshake(
            try SRPConfiguration(group: OddGroups.group1535, hash: .sha256, proofPadding: .padded),
            password: "an odd-length group"
        )
    },
    Flow(name: "srp6a.server-state.sealed+resumed.2047") {
        try handshake(
            try SRPConfiguration(group: OddGroups.group2047, hash: .sha256),
            password: "resumed in 2047 bits",
            resumingFromSealedState: true
        )
    },
    // a table's verifiers checked (2…N−2) and brought to N's length when loaded
    Flow(name: "srp6a.verifier-table.2047") {
        let configuration = try SRPConfiguration(group: OddGroups.group2047, hash: .sha256)
        let verifier = try configuration.makeVerifier(username: username, password: secret("table entry"))
        markSecret(verifier)
        let table = try StaticVerifierStore(
            [(username: "alice@example.com", verifier: verifier)],
            configuration: configuration
        )
        _ = table.lookup("alice@example.com")
    },
    // The secret-power kernel (issue 42) through its portable twin, the same source as the IFMA
    // compilation that valgrind cannot run: secret base and exponent, a base at N's width but not
    // reduced, and an odd-length modulus.
    Flow(name: "secret-power.portable52.3072.e513") {
        try securePower(modulus: SRPGroup.rfc5054Group3072.modulus, baseBytes: 384, exponentBits: 513)
    },
    Flow(name: "secret-power.portable52.2047.e256.unreduced-base") {
        try securePower(modulus: OddGroups.group2047.modulus, baseBytes: 256, exponentBits: 256)
    },
    // The 64-bit-limb kernel (issue 42), the compilation that runs where there is no IFMA.
    Flow(name: "secret-power.mont64.3072.e513") {
        try mont64Power(modulus: SRPGroup.rfc5054Group3072.modulus, exponentBits: 513)
    },
    Flow(name: "secret-power.mont64.2047.e256.unreduced-base") {
        try mont64Power(modulus: OddGroups.group2047.modulus, exponentBits: 256)
    },
    Flow(name: "comb.mont64.3072.e256") {  // the comb on the 64-bit-limb kernel (g^a, g^b, g^x without IFMA)
        try mont64Comb(group: SRPGroup.rfc5054Group3072, exponentBits: 256)
    },
    Flow(name: "comb.portable52.3072.e256") {  // the fixed-base comb on the kernel's digit form (g^a, g^b, g^x)
        let group = SRPGroup.rfc5054Group3072
        let table = FixedBaseTable(
            base: group.generator,
            domain: MontgomeryDomain(modulus: group.modulus),
            maximumExponentBitCount: 256,
            kernel: .portable52
        )
        let exponent = BigUInt(bigEndianBytes: try SystemRandom().secureBytes(count: 32).withUnsafeBytes { Array($0) })
        markSecret(exponent)
        table.preparedPower(exponent, exponentBitCount: 256)()
    },
    Flow(name: "cognito.claim+server-check") {
        try cognitoClaim(realm: "AbCdEf123", identity: "3f1c2d4e-user", password: secret("Passw0rd!"))
    },
    Flow(name: "cognito.device-verifier+device-claim") {
        let devicePassword = secret("uWmJk1m6K4f0Y2v3b9nqZrT8a5sXc7eD1gH0iJkLmNoPqRsT")
        let salt = BigUInt(bigEndianBytes: try SystemRandom().secureBytes(count: 16))
        let verifier = try CognitoDeviceVerifier(
            deviceGroupKey: "-ab12CD34",
            deviceKey: "us-east-1_0f1e2d3c-device",
            devicePassword: devicePassword,
            salt: salt
        )
        markSecret(verifier.verifier)
        try cognitoClaim(
            realm: "-ab12CD34",
            identity: "us-east-1_0f1e2d3c-device",
            password: devicePassword,
            verifier: verifier.verifier,
            salt: salt
        )
    },
    Flow(name: "cognito.device-password.generate") {  // 40 random bytes, Base64 in constant time, then the verifier
        _ = try CognitoDeviceVerifier.generate(
            deviceGroupKey: "-ab12CD34",
            deviceKey: "us-east-1_0f1e2d3c-device",
            random: SecretRandom()
        )
    },
    Flow(name: "sigv4.key-derivation+sign+presign+chunk") {
        let credentials = try Credentials(
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: secret("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            sessionToken: "FQoGZXIvYXdzEXAMPLETOKEN"
        )
        let signer = try SigV4Signer(
            credentials: credentials,
            region: "us-east-1",
            service: "s3",
            keyCache: SigningKeyCache()
        )
        let request = SigV4Request(
            method: "GET",
            target: "/bucket/key.txt?list-type=2",
            headers: [HTTPHeader("Host", "s3.amazonaws.com")]
        )
        let time = try Timestamp(iso8601: "2026-12-01T12:00:00Z")
        _ = try signer.sign(request, at: time)
        _ = try signer.sign(request, at: time)  // the per-day memo
        _ = try signer.presign(request, at: time, expires: 300)
        var streaming = request
        streaming.payload = .streaming
        let seed = try signer.sign(streaming, at: time)
        var chunks = SigV4ChunkSigner(signer: signer, seed: seed)
        _ = Array("abc".utf8).withUnsafeBytes { chunks.sign(chunk: $0) }
        _ = chunks.sign(chunk: UnsafeRawBufferPointer(start: nil, count: 0))
    },
    // the derivation (HMAC, compare with n − 1, + 1) up to OpenSSL's door (make ctgrind-openssl), a header signature
    // and a URL
    Flow(name: "sigv4a.key-derivation+sign+presign") {
        let credentials = try Credentials(
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: secret("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        )
        let signer = try SigV4ASigner(
            credentials: credentials,
            regionSet: ["us-east-1", "us-west-2"],
            service: "s3",
            keyCache: SigV4AKeyCache()
        )
        let request = SigV4Request(
            method: "GET",
            target: "/object",
            headers: [HTTPHeader("Host", "bucket.s3.amazonaws.com")]
        )
        let time = try Timestamp(iso8601: "2026-12-01T12:00:00Z")
        _ = try signer.sign(request, at: time)
        _ = try signer.presign(request, at: time, expires: 600)
    },
    Flow(name: "oss.v1+v4-sign") {
        let credentials = try Credentials(
            accessKeyId: "LTAI5tEXAMPLE",
            secretAccessKey: secret("EXAMPLEsecretKEY0123456789abcd")
        )
        let request = OSSRequest(
            method: "GET",
            target: "/photo.jpg",
            headers: [HTTPHeader("Date", "Tue, 01 Dec 2026 12:00:00 GMT")],
            bucket: "examplebucket",
            key: "photo.jpg"
        )
        let time = try Timestamp(iso8601: "2026-12-01T12:00:00Z")
        _ = try OSSSigner(credentials: credentials, version: .v1, keyCache: SigningKeyCache()).sign(request, at: time)
        _ = try OSSSigner(credentials: credentials, version: .v4, region: "cn-hangzhou", keyCache: SigningKeyCache())
            .sign(request, at: time)
    },
    Flow(name: "aliyun.rpc+acs3+self-signed-authority") {
        let credentials = try Credentials(
            accessKeyId: "LTAI5tEXAMPLE",
            secretAccessKey: secret("EXAMPLEsecretKEY0123456789abcd")
        )
        let time = try Timestamp(iso8601: "2026-12-01T12:00:00Z")
        _ = try AliyunRPCSigner(credentials: credentials).sign(
            action: "AssumeRole",
            version: "2015-04-01",
            parameters: [("RoleArn", "acs:ram::1:role/r"), ("RoleSessionName", "s")],
            at: time,
            nonce: "n1"
        )
        let acs3 = SigV4Request(
            method: "POST",
            target: "/",
            headers: [
                HTTPHeader("host", "sts.aliyuncs.com"), HTTPHeader("x-acs-action", "AssumeRole"),
                HTTPHeader("x-acs-version", "2015-04-01"),
            ],
            payload: .bytes(Array("RoleSessionName=s".utf8))
        )
        _ = try AliyunACS3Signer(credentials: credentials).sign(acs3, at: time, nonce: "n2")
        // The server side of self-signed mode: the policy reads public text, the key signs it.
        let authority = try OSSSigningAuthority(
            credentials: credentials,
            policy: OSSSigningPolicy(buckets: ["examplebucket"], keyPrefixes: [""], regions: ["cn-hangzhou"])
        )
        let request = OSSRequest(
            method: "GET",
            target: "/photo.jpg",
            headers: [HTTPHeader("Host", "h")],
            bucket: "examplebucket",
            key: "photo.jpg"
        )
        for version in [OSSSigner.Version.v1, .v4] {
            let pending = try OSSDetachedSigner(version: version, region: "cn-hangzhou").prepare(request, at: time)
            _ = try authority.sign(OSSSignatureRequest(pending), at: time)
        }
    },
    Flow(name: "mac-and-proof-comparisons") {
        let key = secret("an HMAC key of thirty-two bytes!")
        let message = Array("message".utf8)
        let mac = key.withUnsafeBytes { k in
            message.withUnsafeBytes { HashAlgorithm.sha256.authenticationCode(for: $0, using: k) }
        }
        let macBytes = mac.bytes
        let wrong = secret("an HMAC key of thirty-two bytes?")
        _ = key.withUnsafeBytes { k in
            HMAC<SHA256>.isValidAuthenticationCode(macBytes, authenticating: message, using: k)
        }
        _ = wrong.withUnsafeBytes { k in
            HMAC<SHA256>.isValidAuthenticationCode(macBytes, authenticating: message, using: k)
        }
        _ = key == wrong
        _ = mac == mac
        _ = key.withUnsafeBytes { k in wrong.withUnsafeBytes { w in constantTimeEqual(k, w) } }
    },
]

/// An SRP-6a handshake on both sides: verifier (salt public, verifier marked secret), ephemerals
/// from the secret generator, the client's proof checked by the server and the server's by the client.
///
/// With `resumingFromSealedState`, the server's ephemeral is exported, sealed with AES-256-GCM (the
/// sealed bytes are what a store receives: public), opened, marked secret again (the check is that
/// no code touching `b` branches on it, whatever the AES key's status) and imported by a second
/// server, which finishes the exchange.
func handshake(_ configuration: SRPConfiguration, password text: String, resumingFromSealedState: Bool = false) throws {
    let password = secret(text)
    let verifier = try configuration.makeVerifier(username: username, password: password)
    markSecret(verifier)
    let server = SRPServer(configuration: configuration)
    let client = SRPClient(configuration: configuration)
    var serverEphemeral = try server.makeEphemeral(verifier: verifier, random: SecretRandom())
    if resumingFromSealedState {
        let key = SecureBytes([UInt8](repeating: 0x5A, count: AES256GCM.keyByteCount))
        let nonce = [UInt8](repeating: 0x01, count: AES256GCM.nonceByteCount)
        let sealed = try AES256GCM.seal(
            serverEphemeral.exportedState(),
            key: key,
            nonce: nonce,
            associatedData: Array("login-id".utf8)
        )
        markPublic(sealed)
        let opened = try AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: Array("login-id".utf8))
        opened.withUnsafeBytes { ConstantFlow.classify($0) }
        serverEphemeral = try SRPServer(configuration: configuration).importEphemeral(opened)
    }
    let b = serverEphemeral.serverPublicValue
    let clientEphemeral = try client.makeEphemeral(random: SecretRandom())
    let a = clientEphemeral.publicValue
    let session = try client.processChallenge(
        username: username,
        password: password,
        salt: verifier.salt,
        serverPublicValue: b,
        ephemeral: clientEphemeral
    )
    let serverSession = try server.verifyClient(
        username: username,
        verifier: verifier,
        clientPublicValue: a,
        clientProof: session.clientProof,
        ephemeral: serverEphemeral
    )
    try session.verifyServerProof(serverSession.serverProof)
}

/// A Cognito sign-in's cryptography on both sides: claim by the client, check by the server.
func cognitoClaim(
    realm: String,
    identity: String,
    password: SecureBytes,
    verifier stored: BigUInt? = nil,
    salt storedSalt: BigUInt? = nil
) throws {
    let salt = try storedSalt ?? BigUInt(bigEndianBytes: SystemRandom().secureBytes(count: 16))
    let verifier =
        try stored ?? CognitoSRPServer.verifier(realm: realm, identity: identity, password: password, salt: salt)
    markSecret(verifier)
    let challenge = try CognitoSRPServer.makeChallenge(verifier: verifier, random: SecretRandom())
    markPublic(challenge.secretBlock)  // sent to the client
    let ephemeral = try CognitoSRP.makeEphemeral(random: SecretRandom())
    let a = ephemeral.publicValue
    let timestamp = "Tue Dec 1 12:00:00 UTC 2026"
    let claim = try CognitoSRP.passwordClaim(
        realm: realm,
        identity: identity,
        password: password,
        ephemeral: ephemeral,
        serverPublicValue: challenge.serverPublicValue,
        salt: salt,
        secretBlock: challenge.secretBlock,
        timestamp: timestamp
    )
    _ = try CognitoSRPServer.verifyClaim(
        realm: realm,
        identity: identity,
        verifier: verifier,
        clientPublicValue: a,
        signature: claim.signature,
        timestamp: timestamp,
        challenge: challenge
    )
}

/// base^e mod N through the portable kernel, base and exponent drawn and then marked secret (their
/// `BigUInt`s' word counts stay public, as a fixed-width limb buffer's count is).
func securePower(modulus: BigUInt, baseBytes: Int, exponentBits: Int) throws {
    let base = BigUInt(bigEndianBytes: try SystemRandom().secureBytes(count: baseBytes).withUnsafeBytes { Array($0) })
    let exponent = BigUInt(
        bigEndianBytes: try SystemRandom().secureBytes(count: exponentBits / 8).withUnsafeBytes { Array($0) }
    )
    markSecret(base)
    markSecret(exponent)
    // The prepared form: the result stays in its fixed-width limbs (a BigUInt of it would trim its
    // zero top words, a branch on the secret result that is the caller's, not the kernel's).
    MontgomeryDomain(modulus: modulus).preparedSecretPower(
        base,
        exponent: exponent,
        bitCount: exponentBits,
        kernel: .portable52
    )()
}

/// The controls: deliberately variable-time work on a secret. The checker must report each, or the
/// gate proves nothing: `==` on arrays (stops at the first difference) and GMP's `mpz_powm` with a
/// secret exponent (sliding windows: branches on the exponent's bits).
let controls: [Flow] = [
    Flow(name: "control.array-equality") {
        let key = secret("a secret the control compares with ==")
        let copy = key.withUnsafeBytes { Array($0) }
        let guess = Array("a secret the control compares with !=".utf8)
        if copy == guess { print("control: equal") }
    },
    // the representation the odd-length groups left: a BigUInt trims v's zero top words
    Flow(name: "control.verifier-through-biguint.2047") {
        let configuration = try SRPConfiguration(group: OddGroups.group2047, hash: .sha256)
        let verifier = try configuration.makeVerifier(username: username, password: secret("through a BigUInt"))
        markSecret(verifier)
        _ = SRPVerifier(salt: verifier.salt, verifier: verifier.verifier)
    },
    // the kernel with each window's entry read at the digit's address
    Flow(name: "control.secret-power-indexed-gather") {
        try indexedGatherControl()
    },
    Flow(name: "control.secret-power-mont64-indexed-gather") {
        try mont64Power(modulus: SRPGroup.rfc5054Group2048.modulus, exponentBits: 256, control: true)
    },
    Flow(name: "control.mpz_powm-secret-exponent") {
        let exponent = BigUInt(bigEndianBytes: try SecretRandom().secureBytes(count: 32))
        let group = SRPGroup.rfc5054Group2048
        _ = try group.generator.powerVariableTime(exponent, modulo: group.modulus)
    },
]
