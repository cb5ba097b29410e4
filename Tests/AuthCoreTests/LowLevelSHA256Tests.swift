import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCore

/// The signing hot path's SHA-256 and HMAC-SHA256 on libcrypto's `SHA256_CTX` (`LowLevelSHA256`,
/// `HMACSHA256Schedule`, the key chain): RFC 4231's SHA-256 cases from vectors/hmac-rfc4231.json
/// (cryptography-vectors 50.0.2), and on seeded random inputs the EVP implementations
/// (`SHA256`, `HMAC<SHA256>`), which are independent code paths in libcrypto.
@Suite("Low-level SHA-256 and HMAC-SHA256 key schedules (signing hot path)")
struct LowLevelSHA256Tests {
    struct RFC4231Case {
        let name: String
        let key: [UInt8]
        let message: [UInt8]
        let mac: [UInt8]
    }

    static func rfc4231SHA256Cases() throws -> [RFC4231Case] {
        let url = repositoryRoot.appendingPathComponent("vectors/hmac-rfc4231.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let cases = try #require(document["cases"] as? [[String: Any]])
        return cases.compactMap { item in
            guard item["alg"] as? String == "sha256", let name = item["name"] as? String,
                let key = item["key_hex"] as? String,
                let message = item["msg_hex"] as? String,
                let mac = (item["expect"] as? [String: Any])?["mac_hex"] as? String
            else { return nil }
            return RFC4231Case(name: name, key: hex(key), message: hex(message), mac: hex(mac))
        }
    }

    /// splitmix64: a fixed stream, so a failure names its inputs.
    struct SeededBytes {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    @Test(
        "RFC 4231 (SHA-256 cases 1-7; case 5 truncated to 128 bits): schedule, one-shot form and key chain step agree"
    )
    func rfc4231() throws {
        let cases = try Self.rfc4231SHA256Cases()
        #expect(cases.count == 7)
        for item in cases {
            let schedule = item.key.withUnsafeBytes { HMACSHA256Schedule.make(key: $0) }
            let reused = (0..<2).map { _ in item.message.withUnsafeBytes { schedule.authenticationCode(for: $0).bytes }
            }
            var once = [UInt8](repeating: 0, count: 32)
            item.key.withUnsafeBytes { key in
                item.message.withUnsafeBytes { message in
                    once.withUnsafeMutableBytes {
                        HMACSHA256Schedule.authenticationCode(key: key, message: message, into: $0)
                    }
                }
            }
            for mac in reused + [once] {
                #expect(Array(mac.prefix(item.mac.count)) == item.mac, "\(item.name)")
            }
        }
    }

    @Test(
        "random keys (0-200 bytes, across the 64-byte block; 0, 63, 64, 65 and 128 each time) and messages (0-300 bytes) give EVP's HMAC and SHA-256"
    )
    func differential() {
        var random = SeededBytes(state: 0x5EED_0014)
        let edges = [0, 1, 31, 32, 55, 56, 63, 64, 65, 127, 128, 129]
        for round in 0..<400 {
            let key = random.bytes(round < edges.count ? edges[round] : Int(random.next() % 201))
            let message = random.bytes(Int(random.next() % 301))
            let expected = HMAC<SHA256>.authenticationCode(for: message, using: key)
            let schedule = key.withUnsafeBytes { HMACSHA256Schedule.make(key: $0) }
            #expect(
                message.withUnsafeBytes { schedule.authenticationCode(for: $0) } == expected,
                "round \(round), key \(key.count) B"
            )
            let secretSchedule = HMACSHA256Schedule.make(key: SecureBytes(key))
            #expect(
                message.withUnsafeBytes { secretSchedule.authenticationCode(for: $0) } == expected,
                "round \(round)"
            )
            #expect(
                message.withUnsafeBytes { LowLevelSHA256.hash($0) } == SHA256.hash(bytes: message),
                "round \(round), \(message.count) B"
            )
        }
    }

    @Test(
        "a key chain of 1 to 5 steps equals the same chain of EVP HMACs (each result keys the next)",
        arguments: 1...5
    )
    func keyChainSteps(steps: Int) {
        let seed = Array("AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".utf8)
        let parts = ["20150830", "us-east-1", "iam", "aws4_request", "a fifth part"].prefix(steps).map { $0 }
        var key = seed
        for part in parts { key = HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key).bytes }
        #expect(HMACKeyChain.derive(seed: SecureBytes(seed), parts: parts).withUnsafeBytes { Array($0) } == key)
    }

    @Test(
        "the signer's memo gives each second its own date and text and each day its own key (t, t + 1 s, t, across a day)"
    )
    func signingMemo() throws {
        let credentials = try Credentials(
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        )
        let keys = ScopedSigningKeys(
            scheme: .aws4,
            credentials: credentials,
            region: "us-east-1",
            service: "iam",
            cache: SigningKeyCache(capacity: 4)
        )
        let t = try Timestamp(iso8601: "2026-12-01T23:59:59Z")
        let next = try Timestamp(iso8601: "2026-12-02T00:00:00Z")
        let message = Array("string to sign".utf8)
        for time in [
            t, t, next, t, Timestamp(secondsSince1970: t.secondsSince1970, nanoseconds: 999_000_000), next, next,
        ] {
            let (date, text, entry) = keys.dated(time)
            #expect(text == AmzDate(time).string && date.day == AmzDate(time).day && text == time.amzDate)
            // The entry is that day's key: its MAC equals HMAC under the key derived by EVP HMACs.
            var key = Array("AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".utf8)
            for part in [time.dateStamp, "us-east-1", "iam", "aws4_request"] {
                key = HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key).bytes
            }
            let mac = message.withUnsafeBytes { entry.authenticationCode(for: $0) }
            #expect(mac == HMAC<SHA256>.authenticationCode(for: message, using: key))
            #expect(keys.entry(for: date).isSameSchedule(as: entry))
        }
        #expect(keys.dated(t).text == "20261201T235959Z" && keys.dated(next).date.day == 20_261_202)
    }

    @Test(
        "a signer's cache identity is SHA-256 (EVP) of its length-prefixed encoding, and the signing-key schedule MACs as the derived key does"
    )
    func cacheIdentityAndSchedule() throws {
        for secret in ["wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "s", String(repeating: "k", count: 200)] {
            let credentials = try Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: secret)
            let keys = ScopedSigningKeys(
                scheme: .aliyunV4,
                credentials: credentials,
                region: "cn-hangzhou",
                service: "oss",
                cache: SigningKeyCache(capacity: 1)
            )
            // tag 2 (OSS V4), then each field after its length as a big-endian UInt64
            func field(_ bytes: [UInt8]) -> [UInt8] {
                [0, 0, 0, 0, 0, 0, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
            }
            let encoding =
                [2] + field(Array("AKIDEXAMPLE".utf8)) + field(Array("cn-hangzhou".utf8)) + field(Array("oss".utf8))
                + field(Array(secret.utf8))
            #expect(keys.cacheIdentity.bytes == SHA256.hash(bytes: encoding).bytes)
            #expect(keys.cacheIdentity.bytes != credentials.secretFingerprint.bytes)
            let schedule = SigningScheme.aliyunV4.signingKeySchedule(
                secret: credentials.secretAccessKey,
                date: "20261203",
                region: "cn-hangzhou",
                service: "oss"
            )
            let key = SigningScheme.aliyunV4.deriveSigningKey(
                secret: credentials.secretAccessKey,
                date: "20261203",
                region: "cn-hangzhou",
                service: "oss"
            )
            let message = Array("OSS4-HMAC-SHA256\n20261203T000000Z".utf8)
            let expected = key.withUnsafeBytes { HMAC<SHA256>.authenticationCode(for: message, using: Array($0)) }
            #expect(message.withUnsafeBytes { schedule.authenticationCode(for: $0) } == expected)
        }
    }

    @Test(
        "the signing-key schedule for a date (its bytes lent in place) MACs as the one for the date's text: first and last days, before 1970, years below 1000"
    )
    func scheduleFromDate() throws {
        let credentials = try Credentials(
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        )
        let times: [(Timestamp, String)] = [
            (.minimum, "00010101"), (.maximum, "99991231"), (Timestamp(secondsSince1970: -1), "19691231"),
            (Timestamp(secondsSince1970: -30_610_224_001), "09991231"),  // the last second of 999
            (Timestamp(secondsSince1970: 1_764_633_600), "20251202"),
        ]
        let message = Array("AWS4-HMAC-SHA256\n20251202T000000Z".utf8)
        for (time, text) in times {
            let date = AmzDate(time)
            #expect(date.dateString == text && date.day == Int(text), "\(time)")
            let fromDate = SigningScheme.aws4.signingKeySchedule(
                secret: credentials.secretAccessKey,
                date: date,
                region: "us-east-1",
                service: "s3"
            )
            let fromText = SigningScheme.aws4.signingKeySchedule(
                secret: credentials.secretAccessKey,
                date: text,
                region: "us-east-1",
                service: "s3"
            )
            let key = SigningScheme.aws4.deriveSigningKey(
                secret: credentials.secretAccessKey,
                date: text,
                region: "us-east-1",
                service: "s3"
            )
            let expected = key.withUnsafeBytes { HMAC<SHA256>.authenticationCode(for: message, using: Array($0)) }
            #expect(message.withUnsafeBytes { fromDate.authenticationCode(for: $0) } == expected, "\(text)")
            #expect(message.withUnsafeBytes { fromText.authenticationCode(for: $0) } == expected, "\(text)")
        }
    }

    @Test("the key chain gives the SigV4 signing key of the AWS example (kSigning by EVP HMACs, step by step)")
    func keyChain() {
        let secret = SecureBytes(Array("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".utf8))
        let derived = SigningScheme.aws4.deriveSigningKey(
            secret: secret,
            date: "20150830",
            region: "us-east-1",
            service: "iam"
        )
        var key = Array("AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".utf8)
        for part in ["20150830", "us-east-1", "iam", "aws4_request"] {
            key = HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key).bytes
        }
        #expect(derived.withUnsafeBytes { Array($0) } == key)
        // AWS General Reference, "Examples of how to derive a signing key for Signature Version 4".
        #expect(Hex.encode(key) == "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9")
    }

    @Test("a MAC leaves the schedule's saved states as they were")
    func statesStayAndGo() {
        let key = [UInt8](repeating: 0x0B, count: 20)
        let schedule = key.withUnsafeBytes { HMACSHA256Schedule.make(key: $0) }
        let before = schedule.withSavedStatesForTesting { Array($0) }
        _ = Array("Hi There".utf8).withUnsafeBytes { schedule.authenticationCode(for: $0) }
        #expect(schedule.withSavedStatesForTesting { Array($0) } == before)
        #expect(before.contains { $0 != 0 })
    }
}
