import AuthCore
import AuthCoreTestSupport
import Testing

@Suite("AES-256-GCM sealing, and an SRP server exchange finished from its sealed state")
struct SealedServerStateTests {
    let key = SecureBytes((0..<32).map { UInt8($0) })
    let nonce = (0..<12).map { UInt8(0xA0 + $0) }
    let username = Array("alice".utf8)
    let password = SecureBytes(Array("correct horse".utf8))

    @Test("a sealed value opens only with the same key, nonce and associated data, and unchanged bytes")
    func tampering() throws {
        let plaintext = SecureBytes(Array("state: b, B, g^b".utf8))
        let sealed = try AES256GCM.seal(plaintext, key: key, nonce: nonce, associatedData: Array("login-1".utf8))
        #expect(sealed.count == plaintext.count + AES256GCM.tagByteCount)
        #expect(try AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: Array("login-1".utf8)) == plaintext)
        // Every single-bit change of the sealed bytes is refused.
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x01
            #expect(throws: AuthCoreError(.signatureMismatch, "")) {
                try AES256GCM.open(changed, key: key, nonce: nonce, associatedData: Array("login-1".utf8))
            }
        }
        var otherKey = key
        otherKey.withUnsafeMutableBytes { $0[31] ^= 1 }
        var otherNonce = nonce
        otherNonce[0] ^= 1
        #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try AES256GCM.open(sealed, key: otherKey, nonce: nonce, associatedData: Array("login-1".utf8))
        }
        #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try AES256GCM.open(sealed, key: key, nonce: otherNonce, associatedData: Array("login-1".utf8))
        }
        #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: Array("login-2".utf8))
        }
        #expect(throws: AuthCoreError(.signatureMismatch, "")) { try AES256GCM.open(sealed, key: key, nonce: nonce) }
        #expect(throws: AuthCoreError(.signatureMismatch, "")) {
            try AES256GCM.open(Array(sealed.dropFirst()), key: key, nonce: nonce, associatedData: Array("login-1".utf8))
        }
    }

    @Test("wrong key and nonce sizes are invalid parameters; input shorter than a tag is malformed")
    func sizes() {
        for bad in [0, 16, 31, 33] {
            #expect(throws: AuthCoreError(.invalidParameter, "")) {
                try AES256GCM.seal(SecureBytes(), key: SecureBytes([UInt8](repeating: 1, count: bad)), nonce: nonce)
            }
        }
        for bad in [0, 8, 11, 13, 16] {
            #expect(throws: AuthCoreError(.invalidParameter, "")) {
                try AES256GCM.seal(SecureBytes(), key: key, nonce: [UInt8](repeating: 2, count: bad))
            }
        }
        #expect(throws: AuthCoreError(.malformedInput, "")) {
            try AES256GCM.open([UInt8](repeating: 0, count: 15), key: key, nonce: nonce)
        }
    }

    @Test(
        "an exchange begun in one server and finished from the exported state agrees with the client",
        arguments: [SRPGroup.rfc5054Group2048, .rfc5054Group3072]
    )
    func exportedStateFinishesTheExchange(group: SRPGroup) throws {
        let configuration = try SRPConfiguration(group: group, hash: .sha256)
        let random = SeededRandom(seed: 77)
        let verifier = try configuration.makeVerifier(username: username, password: password, random: random)
        let first = SRPServer(configuration: configuration)
        let ephemeral = try first.makeEphemeral(verifier: verifier, random: random)
        let b = ephemeral.serverPublicValue
        let state = ephemeral.exportedState()
        #expect(state.count == first.exportedEphemeralStateByteCount)
        #expect(state.count == (5 + group.byteCount / 8) * 8)
        // Sealed and opened, as a store would carry it; then another server instance resumes.
        let sealed = try AES256GCM.seal(state, key: key, nonce: nonce, associatedData: Array("login".utf8))
        let opened = try AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: Array("login".utf8))
        let second = SRPServer(configuration: configuration)
        let resumed = try second.importEphemeral(opened)
        #expect(resumed.serverPublicValue == b)

        let client = SRPClient(configuration: configuration)
        let clientEphemeral = try client.makeEphemeral(random: random)
        let a = clientEphemeral.publicValue
        let session = try client.processChallenge(
            username: username,
            password: password,
            salt: verifier.salt,
            serverPublicValue: b.minimalBigEndianBytes,
            ephemeral: clientEphemeral
        )
        let serverSession = try second.verifyClient(
            username: username,
            verifier: verifier,
            clientPublicValue: a.minimalBigEndianBytes,
            clientProof: session.clientProof,
            ephemeral: resumed
        )
        #expect(try session.verifyServerProof(serverSession.serverProof) == serverSession.sessionKey)

        // A wrong proof against a resumed state is still refused.
        var wrong = session.clientProof
        wrong[0] ^= 1
        #expect(throws: AuthCoreError(.proofMismatch, "")) {
            try second.verifyClient(
                username: username,
                verifier: verifier,
                clientPublicValue: a.minimalBigEndianBytes,
                clientProof: wrong,
                ephemeral: try second.importEphemeral(opened)
            )
        }
    }

    @Test("a state of another length, without b's offset bit, with bits above it, or with B out of range is refused")
    func malformedStates() throws {
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let server = SRPServer(configuration: configuration)
        let verifier = try configuration.makeVerifier(
            username: username,
            password: password,
            random: SeededRandom(seed: 5)
        )
        let state = try server.makeEphemeral(verifier: verifier, random: SeededRandom(seed: 6)).exportedState()
        let bytes = state.withUnsafeBytes { Array($0) }
        #expect(throws: AuthCoreError(.invalidLength, "")) {
            _ = try server.importEphemeral(SecureBytes(bytes.dropLast()))
        }
        let other = try SRPServer(configuration: SRPConfiguration(group: .rfc5054Group3072, hash: .sha256))
        #expect(throws: AuthCoreError(.invalidLength, "")) { _ = try other.importEphemeral(state) }
        // b is 5 words big-endian: the offset bit 2^256 is the last bit of byte 7.
        var noOffset = bytes
        noOffset[7] = 0
        #expect(throws: AuthCoreError(.malformedInput, "")) { _ = try server.importEphemeral(SecureBytes(noOffset)) }
        var above = bytes
        above[0] |= 0x80
        #expect(throws: AuthCoreError(.malformedInput, "")) { _ = try server.importEphemeral(SecureBytes(above)) }
        var zeroB = bytes
        for index in 40..<(40 + 256) { zeroB[index] = 0 }
        #expect(throws: AuthCoreError(.unsafePublicValue, "")) { _ = try server.importEphemeral(SecureBytes(zeroB)) }
        #expect(try !server.importEphemeral(SecureBytes(bytes)).serverPublicValue.isZero)
    }
}
