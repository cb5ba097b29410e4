import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

/// Interop both ways with pysrp (PyPI `srp`, pure-Python `srp._pysrp` in RFC 5054 mode, SHA-256),
/// run as a real peer process (`scripts/pysrp_peer.py`): AuthCore's `proofPadsG` option matches
/// pysrp's padded g inside M1.
@Suite("SRP-6a interop with pysrp", .serialized)
struct PysrpInteropTests {
    static let groups: [SRPGroup] = [.rfc5054Group2048, .rfc5054Group3072]

    func hexString(_ reply: [String: Any], _ key: String) throws -> String {
        guard let value = reply[key] as? String else {
            throw PeerError(description: "peer reply has no \(key): \(reply)")
        }
        return value
    }

    @Test("an AuthCore server authenticates a pysrp client; a wrong password fails on both sides", arguments: groups)
    func authcoreServerPysrpClient(group: SRPGroup) throws {
        let peer = try JSONLinePeer(script: "pysrp_peer.py")
        defer { peer.close() }
        let bits = group.modulus.bitWidth
        let configuration = try SRPConfiguration(group: group, hash: .sha256, proofPadsG: true)
        let server = SRPServer(configuration: configuration)
        // The verifier is made by pysrp (create_salted_verification_key).
        let created = try peer.send([
            "op": "create_verifier", "group": bits, "hash": "sha256", "username": "carol", "password": "correct horse",
        ])
        let verifier = SRPVerifier(
            salt: try Hex.decode(hexString(created, "salt_hex")),
            verifier: try BigUInt(hex: hexString(created, "verifier_hex"))
        )
        // AuthCore's own verifier for the same salt is the same number.
        #expect(
            try configuration.makeVerifier(
                username: Array("carol".utf8),
                password: SecureBytes(Array("correct horse".utf8)),
                salt: verifier.salt
            ).verifier == verifier.verifier
        )

        for (password, shouldPass) in [("correct horse", true), ("correct horsf", false)] {
            let started = try peer.send([
                "op": "client_start", "group": bits, "hash": "sha256", "username": "carol", "password": password,
            ])
            let a = try Hex.decodeNumber(hexString(started, "A_hex"))
            let ephemeral = try server.makeEphemeral(verifier: verifier)
            let b = ephemeral.serverPublicValue
            let challenge = try peer.send([
                "op": "client_challenge", "salt_hex": Hex.encode(verifier.salt), "B_hex": b.hexLowercased,
            ])
            let m1 = try Hex.decode(hexString(challenge, "M1_hex"))
            do throws(AuthCoreError) {
                let session = try server.verifyClient(
                    username: Array("carol".utf8),
                    verifier: verifier,
                    clientPublicValue: a,
                    clientProof: m1,
                    ephemeral: ephemeral
                )
                #expect(shouldPass)
                let verified = try? peer.send(["op": "client_verify", "M2_hex": Hex.encode(session.serverProof)])
                #expect(verified?["ok"] as? Bool == true)
                #expect(verified?["K_hex"] as? String == session.sessionKey.withUnsafeBytes { Hex.encode($0) })
            } catch {
                #expect(!shouldPass, "AuthCore refused a correct pysrp client: \(error)")
                #expect(error.code == .proofMismatch)
                // And the pysrp client refuses a proof that is not the server's.
                let verified = try? peer.send(["op": "client_verify", "M2_hex": String(repeating: "00", count: 32)])
                #expect(verified?["ok"] as? Bool == false)
            }
        }
    }

    @Test("a pysrp server authenticates an AuthCore client; a wrong password fails on both sides", arguments: groups)
    func pysrpServerAuthcoreClient(group: SRPGroup) throws {
        let peer = try JSONLinePeer(script: "pysrp_peer.py")
        defer { peer.close() }
        let bits = group.modulus.bitWidth
        let configuration = try SRPConfiguration(group: group, hash: .sha256, proofPadsG: true)
        let client = SRPClient(configuration: configuration)
        let username = Array("dave@example.com".utf8)
        let verifier = try configuration.makeVerifier(username: username, password: SecureBytes(Array("pa55wörd".utf8)))

        for (password, shouldPass) in [("pa55wörd", true), ("pa55word", false)] {
            let ephemeral = try client.makeEphemeral()
            let a = ephemeral.publicValue
            let started = try peer.send([
                "op": "server_start", "group": bits, "hash": "sha256", "username": "dave@example.com",
                "salt_hex": Hex.encode(verifier.salt), "verifier_hex": verifier.verifier.hexLowercased,
                "A_hex": a.hexLowercased,
            ])
            let b = try Hex.decodeNumber(hexString(started, "B_hex"))
            let session = try client.processChallenge(
                username: username,
                password: SecureBytes(Array(password.utf8)),
                salt: verifier.salt,
                serverPublicValue: b,
                ephemeral: ephemeral
            )
            let verified = try peer.send(["op": "server_verify", "M1_hex": Hex.encode(session.clientProof)])
            #expect(verified["ok"] as? Bool == shouldPass)
            if shouldPass {
                let m2 = try Hex.decode(hexString(verified, "M2_hex"))
                let key = try session.verifyServerProof(m2)
                #expect(try hexString(verified, "K_hex") == key.withUnsafeBytes { Hex.encode($0) })
                #expect(m2 == session.serverProof)
            } else {
                // The AuthCore client refuses anything but the right M2.
                #expect(errorCode { try session.verifyServerProof([UInt8](repeating: 0, count: 32)) } == .proofMismatch)
            }
        }
    }

    @Test("pysrp and AuthCore refuse each other's unsafe public values")
    func unsafeValuesAcrossPeers() throws {
        let peer = try JSONLinePeer(script: "pysrp_peer.py")
        defer { peer.close() }
        let n = SRPGroup.rfc5054Group2048.modulus
        let refused = try peer.send([
            "op": "server_start", "group": 2048, "hash": "sha256", "username": "u", "salt_hex": "0102",
            "verifier_hex": "05", "A_hex": n.hexLowercased,
        ])
        #expect(refused["error"] != nil)
    }
}
