import AuthCore

/// `srp6a`: generic SRP-6a (RFC 5054 math, RFC 2945 proofs), checked through AuthCore's real client
/// and server: the server's verifier, `B` and `M1` check, the client's `u`, `x`, `S`, `K`, `M1`, `M2`.
struct SRPVectorKind: VectorKind {
    let name = "srp6a"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(
            allowed: ["k_hex", "x_hex", "v_hex", "A_hex", "B_hex", "u_hex", "S_hex", "K_hex", "M1_hex", "M2_hex"])
        let group = try Self.group(c)
        let hash = try HashAlgorithm.fromVector(c, "hash")
        let padG = try c.optionalBool("options.proof_pad_g") ?? false
        let paddingName = try c.optionalString("options.proof_padding") ?? "minimal"
        guard let padding = SRPProofPadding(rawValue: paddingName) else {
            throw .invalid("options.proof_padding", "expected minimal or padded")
        }
        let username = Array(try c.string("username").utf8)
        let password = SecureBytes(Array(try c.string("password").utf8))
        let salt = try c.hexBytes("salt_hex")
        let a = try c.bigInteger("a_hex")
        let b = try c.bigInteger("b_hex")

        let configuration: SRPConfiguration
        do {
            configuration = try SRPConfiguration(group: group, hash: hash, proofPadsG: padG, proofPadding: padding)
        } catch {
            throw .invalid("hash", error.reason)
        }
        let client = SRPClient(configuration: configuration)
        let server = SRPServer(configuration: configuration)
        let outcome:
            (SRPVerifier, BigUInt, BigUInt, SRPClientSession, SRPServerSession, SRPIntermediates, BigUInt, SecureBytes)
        do throws(AuthCoreError) {
            let verifier = try configuration.makeVerifier(username: username, password: password, salt: salt)
            let serverEphemeral = try server.ephemeral(privateValue: b, verifier: verifier)
            let bValue = serverEphemeral.serverPublicValue
            let clientEphemeral = try client.ephemeral(privateValue: a)
            let aValue = clientEphemeral.publicValue
            let session = try client.processChallenge(
                username: username,
                password: password,
                salt: salt,
                serverPublicValue: bValue,
                ephemeral: clientEphemeral,
                recordingIntermediates: true
            )
            let serverSession = try server.verifyClient(
                username: username,
                verifier: verifier,
                clientPublicValue: aValue,
                clientProof: session.clientProof,
                ephemeral: serverEphemeral,
                recordingIntermediates: true
            )
            let key = try session.verifyServerProof(serverSession.serverProof)
            guard let recorded = session.intermediates, let serverS = serverSession.premasterSecret else {
                throw AuthCoreError(.invalidParameter, "intermediates were not recorded")
            }
            outcome = (verifier, aValue, bValue, session, serverSession, recorded, serverS, key)
        } catch {
            throw .invalid("handshake", "\(error.code): \(error.reason)")
        }
        let (verifier, aValue, bValue, session, serverSession, intermediates, serverS, key) = outcome
        guard serverS == intermediates.premasterSecret else {
            throw .mismatch(
                "server.S",
                expected: intermediates.premasterSecret.hexLowercased,
                got: serverS.hexLowercased
            )
        }
        for field in fields {
            let path = "expect.\(field)"
            let expected = try c.string(path)
            switch field {
            case "k_hex":
                let width = hash.byteCount
                let got =
                    (try? configuration.multiplier.bigEndianBytes(paddedTo: width))
                    ?? configuration.multiplier.minimalBigEndianBytes
                try c.checkHex(path, expected: expected, got: got)
            case "x_hex": try c.checkHex(path, expected: expected, got: Self.width(intermediates.privateKey, hash))
            case "u_hex": try c.checkHex(path, expected: expected, got: Self.width(session.scramblingParameter, hash))
            case "v_hex": try c.checkNumber(path, expected: expected, got: verifier.verifier)
            case "A_hex": try c.checkNumber(path, expected: expected, got: aValue)
            case "B_hex": try c.checkNumber(path, expected: expected, got: bValue)
            case "S_hex": try c.checkNumber(path, expected: expected, got: intermediates.premasterSecret)
            case "K_hex": try c.checkHex(path, expected: expected, got: key.withUnsafeBytes { Array($0) })
            case "M1_hex": try c.checkHex(path, expected: expected, got: session.clientProof)
            default: try c.checkHex(path, expected: expected, got: serverSession.serverProof)
            }
        }
    }

    static func width(_ value: BigUInt, _ hash: HashAlgorithm) -> [UInt8] {
        (try? value.bigEndianBytes(paddedTo: hash.byteCount)) ?? value.minimalBigEndianBytes
    }

    static func group(_ c: VectorCase) throws(CaseFailure) -> SRPGroup {
        if c.has("group") {
            let name = try c.string("group")
            do { return try SRPGroup(named: name) } catch { throw .invalid("group", error.reason) }
        }
        let n = try c.bigInteger("N_hex")
        let g = try c.bigInteger("g_hex")
        do { return try SRPGroup(modulus: n, generator: g) } catch { throw .invalid("N_hex", error.reason) }
    }
}
