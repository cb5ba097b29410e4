import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The fixes a review of the Cognito clients asked for (issue 12, item 5), each with a test that
/// failed before: overlapping sign-in calls, SMS offered for MFA set-up, Amplify's factor and MFA
/// names, the China endpoints, retries of throttled calls that are safe to repeat.
@Suite("Cognito review fixes")
struct CognitoReviewFixTests {
    static func answer(_ status: Int = 200, _ object: [String: Any]) -> HTTPResponse { .jsonAnswer(status, object) }

    static var tokens: [String: Any] {
        [
            "AuthenticationResult": [
                "IdToken": "i.d.t", "AccessToken": "a.c.t", "ExpiresIn": 3600, "TokenType": "Bearer",
            ]
        ]
    }

    static func configuration() throws -> CognitoUserPoolConfiguration {
        try CognitoUserPoolConfiguration(region: "us-east-1", userPoolId: "us-east-1_Abc123", clientId: "client1")
    }

    static func body(_ request: HTTPRequest) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: (request.body.withInMemoryBytes { Data($0) } ?? Data())))
            as? [String: Any] ?? [:]
    }

    static func recordingPolicy(_ delays: Locked<[Duration]>, attempts: Int = 3) -> RetryPolicy {
        RetryPolicy(maximumAttempts: attempts, baseDelay: .milliseconds(200), maximumDelay: .seconds(5)) { delay in
            delays.withLock { $0.append(delay) }
        }
    }

    @Test(
        "a second signIn or confirmSignIn while one waits for the network is refused, and cannot use the other call's password"
    )
    func overlappingSignIn() async throws {
        let transport = GatedTransport()
        let client = CognitoSignIn(configuration: try Self.configuration(), transport: transport)
        let first = Task {
            try await client.signIn(
                username: "alice",
                password: SecureBytes(Array("alice-password".utf8)),
                flow: .userPassword
            )
        }
        try await transport.waitUntilRequested()
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await client.signIn(
                username: "mallory",
                password: SecureBytes(Array("other".utf8)),
                flow: .userPassword
            )
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await client.confirmSignIn(challengeResponse: "123456")
        }
        transport.release(Self.answer(200, Self.tokens))
        guard case .signedIn = try await first.value else {
            Issue.record("the first sign-in did not finish")
            return
        }
        // Only the first call reached the service, with its own user and password.
        #expect(transport.sent.count == 1)
        let parameters = Self.body(transport.sent[0])["AuthParameters"] as? [String: String]
        #expect(parameters?["USERNAME"] == "alice")
        #expect(parameters?["PASSWORD"] == "alice-password")
    }

    @Test(
        "MFA_SETUP offering only SMS is a typed error (it was answered as e-mail set-up); SMS beside TOTP leaves TOTP"
    )
    func smsMFASetup() async throws {
        let onlySMS = ScriptedTransport([
            Self.answer(
                200,
                [
                    "ChallengeName": "MFA_SETUP", "Session": "s1",
                    "ChallengeParameters": ["MFAS_CAN_SETUP": "[\"SMS_MFA\"]"],
                ]
            )
        ])
        let client = CognitoSignIn(configuration: try Self.configuration(), transport: onlySMS)
        await #expect(throws: AuthCoreError(.unsupported, "")) {
            try await client.signIn(username: "alice", password: SecureBytes(Array("pw".utf8)), flow: .userPassword)
        }
        let both = ScriptedTransport([
            Self.answer(
                200,
                [
                    "ChallengeName": "MFA_SETUP", "Session": "s1",
                    "ChallengeParameters": ["MFAS_CAN_SETUP": "[\"SMS_MFA\",\"SOFTWARE_TOKEN_MFA\"]"],
                ]
            ),
            Self.answer(200, ["SecretCode": "JBSWY3DPEHPK3PXP", "Session": "s2"]),
        ])
        let second = CognitoSignIn(configuration: try Self.configuration(), transport: both)
        let step = try await second.signIn(
            username: "alice",
            password: SecureBytes(Array("pw".utf8)),
            flow: .userPassword
        )
        guard case .nextStep(.continueSignInWithTOTPSetup(let secret, _)) = step else {
            Issue.record("expected TOTP set-up, got \(step)")
            return
        }
        #expect(secret == "JBSWY3DPEHPK3PXP")
        #expect(
            both.sent.last?.headers.first(named: "X-Amz-Target")
                == "AWSCognitoIdentityProviderService.AssociateSoftwareToken"
        )
    }

    @Test("Amplify's names are accepted beside Cognito's: emailOTP for a first factor, totp for an MFA type")
    func amplifyNames() async throws {
        #expect(CognitoFactor(name: "emailOTP") == .emailOTP)
        #expect(CognitoFactor(name: "PASSWORD_SRP") == .passwordSRP)
        #expect(CognitoFactor(name: "email") == nil)
        #expect(CognitoMFAType(name: "totp") == .totp)
        #expect(CognitoMFAType(name: "EMAIL_OTP") == .email)
        let transport = ScriptedTransport([
            Self.answer(
                200,
                [
                    "ChallengeName": "SELECT_CHALLENGE", "Session": "s1",
                    "AvailableChallenges": ["EMAIL_OTP", "PASSWORD"], "ChallengeParameters": [:],
                ]
            ),
            Self.answer(
                200,
                [
                    "ChallengeName": "EMAIL_OTP", "Session": "s2",
                    "ChallengeParameters": ["CODE_DELIVERY_DELIVERY_MEDIUM": "EMAIL"],
                ]
            ),
        ])
        let client = CognitoSignIn(configuration: try Self.configuration(), transport: transport)
        _ = try await client.signIn(username: "alice", password: nil, flow: .userAuth)
        let step = try await client.confirmSignIn(challengeResponse: "emailOTP")
        guard case .nextStep(.confirmSignInWithOTP) = step else {
            Issue.record("expected the OTP step, got \(step)")
            return
        }
        #expect((Self.body(transport.sent[1])["ChallengeResponses"] as? [String: String])?["ANSWER"] == "EMAIL_OTP")

        let mfa = ScriptedTransport([
            Self.answer(
                200,
                [
                    "ChallengeName": "SELECT_MFA_TYPE", "Session": "s1",
                    "ChallengeParameters": ["MFAS_CAN_CHOOSE": "[\"SMS_MFA\",\"SOFTWARE_TOKEN_MFA\"]"],
                ]
            ),
            Self.answer(200, ["ChallengeName": "SOFTWARE_TOKEN_MFA", "Session": "s2", "ChallengeParameters": [:]]),
        ])
        let other = CognitoSignIn(configuration: try Self.configuration(), transport: mfa)
        _ = try await other.signIn(username: "alice", password: SecureBytes(Array("pw".utf8)), flow: .userPassword)
        _ = try await other.confirmSignIn(challengeResponse: "totp")
        #expect((Self.body(mfa.sent[1])["ChallengeResponses"] as? [String: String])?["ANSWER"] == "SOFTWARE_TOKEN_MFA")
    }

    @Test(
        "default endpoints in the China regions end in amazonaws.com.cn, for every client; a region cannot choose the host"
    )
    func chinaEndpoints() throws {
        for region in ["cn-north-1", "cn-northwest-1"] {
            let pool = try CognitoUserPoolConfiguration(region: region, userPoolId: "\(region)_Abc123", clientId: "c")
            #expect(pool.endpoint.absoluteString == "https://cognito-idp.\(region).amazonaws.com.cn/")
            #expect(
                try CognitoIdentityClient(region: region).endpoint.absoluteString
                    == "https://cognito-identity.\(region).amazonaws.com.cn/"
            )
            #expect(try STSClient(region: region).endpoint.absoluteString == "https://sts.\(region).amazonaws.com.cn/")
        }
        #expect(try STSClient(region: "eu-south-2").endpoint.absoluteString == "https://sts.eu-south-2.amazonaws.com/")
        for bad in ["", "us-east-1.evil.example/#", "US-EAST-1", "-x", String(repeating: "a", count: 33)] {
            #expect(throws: AuthCoreError(.invalidParameter, "")) { try STSClient(region: bad) }
            #expect(throws: AuthCoreError(.invalidParameter, "")) { try CognitoIdentityClient(region: bad) }
        }
    }

    @Test(
        "throttling and 5xx answers to calls that are safe to repeat are retried a bounded number of times with jittered delays"
    )
    func retries() async throws {
        let delays = Locked<[Duration]>([])
        let transport = ScriptedTransport([
            Self.answer(503, ["__type": "ServiceUnavailable", "message": "busy"]),
            Self.answer(400, ["__type": "TooManyRequestsException", "message": "slow down"]),
            Self.answer(200, ["Username": "alice", "UserAttributes": []]),
        ])
        let api = CognitoIdentityProviderAPI(
            configuration: try Self.configuration(),
            transport: transport,
            retryPolicy: Self.recordingPolicy(delays)
        )
        #expect(try await api.getUser(accessToken: "a.c.t").username == "alice")
        #expect(transport.sent.count == 3)
        let waited = delays.withLock { $0 }
        #expect(waited.count == 2)
        #expect(waited.count == 2 && waited[0] <= .milliseconds(200) && waited[1] <= .milliseconds(400), "\(waited)")

        // At most maximumAttempts; the last error is the service's, with its request id.
        let busy = ScriptedTransport(
            Array(repeating: Self.answer(500, ["__type": "InternalErrorException", "message": "down"]), count: 4)
        )
        let bounded = CognitoIdentityProviderAPI(
            configuration: try Self.configuration(),
            transport: busy,
            retryPolicy: Self.recordingPolicy(delays)
        )
        do {
            _ = try await bounded.getUser(accessToken: "a.c.t")
            Issue.record("a failing service did not fail the call")
        } catch {
            #expect(error.serviceErrorType == "InternalErrorException")
            #expect(error.requestId == "req-500")
        }
        #expect(busy.sent.count == 3)

        // Not retried: a refusal, and a challenge answer (a code counts once).
        let refused = ScriptedTransport([
            Self.answer(400, ["__type": "NotAuthorizedException", "message": "no"]), Self.answer(200, [:]),
        ])
        let once = CognitoIdentityProviderAPI(
            configuration: try Self.configuration(),
            transport: refused,
            retryPolicy: Self.recordingPolicy(delays)
        )
        await #expect(throws: AuthCoreError(.serviceError, "")) { try await once.getUser(accessToken: "a.c.t") }
        #expect(refused.sent.count == 1)
        let challenge = ScriptedTransport([
            Self.answer(503, ["__type": "ServiceUnavailable"]), Self.answer(200, Self.tokens),
        ])
        let answer = CognitoIdentityProviderAPI(
            configuration: try Self.configuration(),
            transport: challenge,
            retryPolicy: Self.recordingPolicy(delays)
        )
        await #expect(throws: AuthCoreError(.serviceError, "")) {
            try await answer.call(
                "RespondToAuthChallenge",
                ["ChallengeName": "SMS_MFA", "ClientId": "client1", "ChallengeResponses": [:]]
            )
        }
        #expect(challenge.sent.count == 1)

        // A refresh may have rotated the refresh token before a 5xx or a lost answer: retried only when
        // throttled (the answer proves it was not processed).
        let refresh = ScriptedTransport([
            Self.answer(503, ["__type": "ServiceUnavailable"]), Self.answer(200, Self.tokens),
        ])
        let refreshing = CognitoIdentityProviderAPI(
            configuration: try Self.configuration(),
            transport: refresh,
            retryPolicy: Self.recordingPolicy(delays)
        )
        await #expect(throws: AuthCoreError(.serviceError, "")) { try await refreshing.tokensFromRefreshToken("r") }
        #expect(refresh.sent.count == 1)
        let throttled = ScriptedTransport([
            Self.answer(400, ["__type": "TooManyRequestsException"]), Self.answer(200, Self.tokens),
        ])
        let patient = CognitoIdentityProviderAPI(
            configuration: try Self.configuration(),
            transport: throttled,
            retryPolicy: Self.recordingPolicy(delays)
        )
        #expect(try await patient.tokensFromRefreshToken("r").accessToken == "a.c.t")
        #expect(throttled.sent.count == 2)

        // The identity and STS clients retry through their sender; GetId without logins (it creates an
        // identity) only when throttled.
        let identity = ScriptedTransport([
            Self.answer(500, ["__type": "InternalErrorException"]), Self.answer(200, ["IdentityId": "us-east-1:abc"]),
        ])
        let client = try CognitoIdentityClient(
            region: "us-east-1",
            sender: SignedRequestSender(transport: identity, retryPolicy: Self.recordingPolicy(delays))
        )
        #expect(
            try await client.getId(identityPoolId: "us-east-1:pool", logins: ["accounts.google.com": "t"])
                == "us-east-1:abc"
        )
        #expect(identity.sent.count == 2)
        let guest = ScriptedTransport([
            Self.answer(500, ["__type": "InternalErrorException"]), Self.answer(200, ["IdentityId": "us-east-1:abc"]),
        ])
        let guestClient = try CognitoIdentityClient(
            region: "us-east-1",
            sender: SignedRequestSender(transport: guest, retryPolicy: Self.recordingPolicy(delays))
        )
        await #expect(throws: AuthCoreError(.serviceError, "")) {
            try await guestClient.getId(identityPoolId: "us-east-1:pool")
        }
        #expect(guest.sent.count == 1)
    }

    @Test("a task cancelled during a retry backoff ends with the cancelled code at once")
    func cancelledBackoff() async throws {
        let transport = ScriptedTransport(
            Array(repeating: Self.answer(503, ["__type": "ServiceUnavailable"]), count: 3)
        )
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(30), maximumDelay: .seconds(30))
        let api = CognitoIdentityProviderAPI(
            configuration: try Self.configuration(),
            transport: transport,
            retryPolicy: policy,
            random: FixedByteRandom(0xFF)
        )
        let call = Task { try await api.getUser(accessToken: "a.c.t") }
        try await Task.sleep(for: .milliseconds(200))
        call.cancel()
        let started = ContinuousClock.now
        do {
            _ = try await call.value
            Issue.record("the cancelled call succeeded")
        } catch let error as AuthCoreError {
            #expect(error.code == .cancelled)
        }
        #expect(ContinuousClock.now - started < .seconds(20), "well before the 30 s backoff ends")
        #expect(transport.sent.count == 1)
    }
}

extension CognitoReviewFixTests {
    static func base64URL(_ bytes: [UInt8]) -> String { Base64.encode(bytes, alphabet: .urlSafe, padding: false) }

    static func token(kid: String) -> String {
        let header = base64URL(Array(#"{"alg":"RS256","kid":"\#(kid)"}"#.utf8))
        return header + "." + base64URL(Array("{}".utf8)) + "." + base64URL([UInt8](repeating: 0x41, count: 256))
    }

    @Test("a malformed JWKS entry is skipped, not fatal; a failing JWKS endpoint is asked at most once per 30 s")
    func keySetFetching() async throws {
        let good = [
            "kty": "RSA", "kid": "k1", "e": "AQAB", "n": Self.base64URL([0xC3] + [UInt8](repeating: 0x5A, count: 255)),
        ]
        let jwks = Self.answer(
            200,
            [
                "keys": [
                    ["kty": "RSA", "kid": "bad", "n": "!!", "e": "AQAB"],
                    ["kty": "RSA", "kid": "short", "n": "AQAB", "e": "AQAB"], good,
                ]
            ]
        )
        let transport = ScriptedTransport([jwks])
        // A clock that stands still: on a slow run (ThreadSanitizer) 30 s of wall time may pass here.
        let verifier = try CognitoTokenVerifier(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientIds: ["c"],
            transport: transport,
            clock: FixedClock(Timestamp(secondsSince1970: 1_796_000_000))
        )
        // k1 was kept: the made-up signature is checked against it (and fails), not "unknown key".
        await #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try await verifier.verify(Self.token(kid: "k1"), as: .access)
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await verifier.verify(Self.token(kid: "bad"), as: .access)
        }
        #expect(transport.sent.count == 1)

        let failing = ScriptedTransport([Self.answer(500, ["__type": "InternalError"]), jwks])
        let clock = ManualClock(Timestamp(secondsSince1970: 1_796_000_000))
        let second = try CognitoTokenVerifier(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientIds: ["c"],
            transport: failing,
            clock: clock
        )
        await #expect(throws: AuthCoreError(.serviceError, "")) {
            try await second.verify(Self.token(kid: "k1"), as: .access)
        }
        await #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try await second.verify(Self.token(kid: "k1"), as: .access)
        }
        #expect(failing.sent.count == 1, "no second fetch within 30 s of a failed one")
        clock.advance(seconds: 31)
        await #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try await second.verify(Self.token(kid: "k1"), as: .access)
        }
        #expect(failing.sent.count == 2)
        // A kid with control characters is not echoed raw.
        do {
            _ = try await verifier.verify(Self.token(kid: "x\\u001b[31mred"), as: .access)
        } catch {
            #expect(!error.reason.contains("\u{1b}"), "\(error.reason)")
        }
    }
}

/// Random bytes that are all one value (the longest jitter for 0xFF).
struct FixedByteRandom: SecureRandomGenerator {
    let byte: UInt8
    init(_ byte: UInt8) { self.byte = byte }
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        for index in buffer.indices { buffer[index] = byte }
    }
}

/// A transport whose first request waits until the test releases it.
final class GatedTransport: HTTPTransport {
    private let state = Locked<
        (sent: [HTTPRequest], waiting: CheckedContinuation<HTTPResponse, Never>?, early: HTTPResponse?)
    >(([], nil, nil))

    var sent: [HTTPRequest] { state.withLock { $0.sent } }

    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        await withCheckedContinuation { continuation in
            let early: HTTPResponse? = state.withLock { state in
                state.sent.append(request)
                if let response = state.early {
                    state.early = nil
                    return response
                }
                state.waiting = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    func waitUntilRequested() async throws {
        for _ in 0..<500 {
            if state.withLock({ $0.waiting != nil }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw PeerError(description: "no request arrived")
    }

    func release(_ response: HTTPResponse) {
        let continuation = state.withLock { state -> CheckedContinuation<HTTPResponse, Never>? in
            defer { state.waiting = nil }
            if state.waiting == nil { state.early = response }
            return state.waiting
        }
        continuation?.resume(returning: response)
    }
}
