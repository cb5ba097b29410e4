import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Two `authcore serve` processes sharing one `redis-server` (Debian's, on a free loopback port,
/// started here and stopped by PID): what a deployment behind a load balancer relies on. The SRP
/// checks are AuthCore's own on both sides here; the server's SRP against an independent client
/// (pysrp) is proven by the SRP interop suite, and the store's commands by RedisHandshakeStoreTests.
@Suite("authcore serve: two instances on one Redis", .serialized)
final class AppServerInstancesTests {
    let redis: RedisServerProcess
    let fleet: AppServerFleet
    let secret = ["AUTHCORE_SERVER_SECRET": "instances-share-this-secret-of-32+bytes"]
    let password = SecureBytes(Array("correct horse battery staple".utf8))

    init() throws {
        redis = try RedisServerProcess()
        fleet = try AppServerFleet(passwords: [
            "alice": "correct horse battery staple", "bob": "correct horse battery staple",
        ])
    }

    deinit { redis.stop() }

    var configuration: [String: Any] {
        [
            "store": ["redis": ["port": redis.port]],
            "srp": ["handshakeLifetimeSeconds": 3, "maximumFailures": 3, "failureWindowSeconds": 60],
            "ossSigning": [
                "buckets": ["photos"], "keyPrefixes": ["users/"], "regions": ["cn-hangzhou"], "sharedAcrossUsers": true,
            ],
        ]
    }

    var environment: [String: String] {
        secret.merging(["OSS_ACCESS_KEY_ID": "LTAI5tInstanceTestKey", "OSS_ACCESS_KEY_SECRET": "instance-test-secret"])
        { $1 }
    }

    /// An OSS signing request the policy allows, to prove a session token works on an instance.
    func signingRequest() throws -> OSSSignatureRequest {
        let pending = try OSSDetachedSigner(version: .v4, region: "cn-hangzhou", accessKeyId: "LTAI5tInstanceTestKey")
            .prepare(
                OSSRequest(
                    method: "GET",
                    target: "/users/a.txt",
                    headers: [HTTPHeader("Host", "photos.oss")],
                    bucket: "photos",
                    key: "users/a.txt"
                ),
                at: SystemClock().now()
            )
        return OSSSignatureRequest(pending)
    }

    @Test(
        "a login begun on one instance finishes on the other, whose session token the first accepts; the id is refused the second time"
    )
    func beginHereFinishThere() async throws {
        let a = try fleet.start(configuration, environment: environment)
        let b = try fleet.start(configuration, environment: environment)
        let pending = try await loginClient(a).begin(username: "alice", password: password)
        let result = try await loginClient(b).finish(pending)
        #expect(result.username == "alice")
        let signer = try URLSignatureProvider(
            url: try RequestURL(a.url + "/oss/sign"),
            headers: [result.authorizationHeader]
        )
        #expect(try await signer.signature(for: try signingRequest()).accessKeyId == "LTAI5tInstanceTestKey")
        await expectRefusal(400, "LoginExpired", "a replayed login id on the first instance") {
            try await loginClient(a).finish(pending)
        }
        await expectRefusal(400, "LoginExpired", "a replayed login id on the second instance") {
            try await loginClient(b).finish(pending)
        }
    }

    @Test(
        "a foreign login id (random, or begun under another server secret on the same Redis) and an expired one are refused"
    )
    func foreignAndExpired() async throws {
        let a = try fleet.start(configuration, environment: environment)
        let b = try fleet.start(configuration, environment: environment)
        let stranger = try fleet.start(
            configuration,
            environment: environment.merging(["AUTHCORE_SERVER_SECRET": "another-deployment-secret-of-32-bytes!"]) {
                $1
            }
        )

        let random = try await postJSON(
            a,
            "/srp/finish",
            #"{"loginId":"00112233445566778899aabbccddeeff","M1":"\#(String(repeating: "00", count: 32))"}"#
        )
        #expect(random.status == 400)
        #expect(random.code == "LoginExpired")

        let foreign = try await loginClient(stranger).begin(username: "alice", password: password)
        await expectRefusal(400, "LoginExpired", "a login begun under another secret") {
            try await loginClient(a).finish(foreign)
        }

        let late = try await loginClient(a).begin(username: "bob", password: password)
        try await Task.sleep(for: .milliseconds(3300))
        await expectRefusal(400, "LoginExpired", "a login past its 3 s lifetime") {
            try await loginClient(b).finish(late)
        }
        // The failures above were not proofs: bob can log in.
        #expect(try await loginClient(b).login(username: "bob", password: password).username == "bob")
    }

    @Test("the lockout counts failures made on both instances: after three, the right password is refused on either")
    func lockoutAcrossInstances() async throws {
        let a = try fleet.start(configuration, environment: environment)
        let b = try fleet.start(configuration, environment: environment)
        let wrong = SecureBytes(Array("wrong".utf8))
        for instance in [a, b, a] {
            await expectRefusal(401, "ProofMismatch", "a wrong password") {
                try await loginClient(instance).login(username: "alice", password: wrong)
            }
        }
        for instance in [a, b] {
            await expectRefusal(429, "TooManyFailures", "the right password while locked out") {
                try await loginClient(instance).login(username: "alice", password: self.password)
            }
        }
        // Another user is not affected.
        #expect(try await loginClient(b).login(username: "bob", password: password).username == "bob")
    }

    @Test("an instance killed between the two round trips does not stop the other from finishing the login")
    func killedInstance() async throws {
        let a = try fleet.start(configuration, environment: environment)
        let b = try fleet.start(configuration, environment: environment)
        let pending = try await loginClient(a).begin(username: "alice", password: password)
        a.kill()
        #expect(try await loginClient(b).finish(pending).username == "alice")
    }

    @Test(
        "a Redis restart mid-run costs the logins in flight and nothing else: new logins work on both instances at once"
    )
    func redisRestart() async throws {
        let a = try fleet.start(configuration, environment: environment)
        let b = try fleet.start(configuration, environment: environment)
        #expect(try await loginClient(a).login(username: "alice", password: password).username == "alice")
        let inFlight = try await loginClient(a).begin(username: "bob", password: password)
        redis.stop()
        try redis.start()
        await expectRefusal(400, "LoginExpired", "a login whose state Redis lost") {
            try await loginClient(b).finish(inFlight)
        }
        let pending = try await loginClient(b).begin(username: "bob", password: password)
        #expect(try await loginClient(a).finish(pending).username == "bob")
        #expect(try await loginClient(b).login(username: "alice", password: password).username == "alice")
    }

    @Test("with Redis down, a login is a 502 JSON error and nothing is half-written: once it is back, logins work")
    func redisDown() async throws {
        let a = try fleet.start(configuration, environment: environment)
        redis.stop()
        let down = try await postJSON(a, "/srp/begin", #"{"username":"alice","A":"02"}"#)
        #expect(down.status == 502)
        #expect(down.code == "UpstreamFailure")
        // The reason (Redis's address, errno) is the server's log, not the client's answer.
        #expect(!String(decoding: down.body, as: UTF8.self).contains("127.0.0.1"))
        try redis.start()
        #expect(try await loginClient(a).login(username: "alice", password: password).username == "alice")
    }
}
