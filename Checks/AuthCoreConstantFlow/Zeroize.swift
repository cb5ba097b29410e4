import AuthCore

#if canImport(Glibc)
import Glibc
#endif

/// The engine's half of `make zeroize-check`: the password (read from stdin into wiping storage,
/// never a `String`) goes through an SRP-6a verifier and handshake, Cognito claims (until both a
/// premaster `S` with a top byte ≥ 0x80 and one below have been seen, since they are hashed with
/// different padding) with the server's check, and a device verifier. The driver looks for the
/// password and for `x` in freed heap blocks.
func runZeroizeFlows(_ arguments: [String]) -> Int32 {
    guard arguments.isEmpty else {
        print("usage: authcore-ctcheck zeroize < password")
        return 2
    }
    let password: SecureBytes
    do { password = try readPassword() } catch {
        print("zeroize: \(error)")
        return 1
    }
    do {
        // RFC 5054 verifier and handshake, salt fixed so the driver can compute x = H(s | H(I:P)).
        let configuration = try SRPConfiguration(group: .rfc5054Group2048, hash: .sha256)
        let salt = Array("zeroize-check-salt".utf8)
        let verifier = try configuration.makeVerifier(username: username, password: password, salt: salt)
        let server = SRPServer(configuration: configuration)
        let client = SRPClient(configuration: configuration)
        let serverEphemeral = try server.makeEphemeral(verifier: verifier)
        let b = serverEphemeral.serverPublicValue
        let clientEphemeral = try client.makeEphemeral()
        let a = clientEphemeral.publicValue
        let session = try client.processChallenge(
            username: username,
            password: password,
            salt: salt,
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
        _ = try session.verifyServerProof(serverSession.serverProof)

        // Cognito claims until both paddings of S have been used (about half of all sign-ins each).
        var seenHigh = false
        var seenLow = false
        var rounds = 0
        while !(seenHigh && seenLow) && rounds < 64 {
            rounds += 1
            let high = try cognitoRound(password: password)
            if high { seenHigh = true } else { seenLow = true }
        }
        guard seenHigh && seenLow else {
            print("zeroize: both S classes not reached in 64 rounds")
            return 1
        }

        _ = try CognitoDeviceVerifier(
            deviceGroupKey: "-grp",
            deviceKey: "us-east-1_dev",
            devicePassword: password,
            salt: BigUInt(bigEndianBytes: Array("zeroize-check-salt".utf8))
        )
        print("zeroize: flows done (\(rounds) Cognito rounds)")
        return 0
    } catch {
        print("zeroize: \(error)")
        return 1
    }
}

/// One Cognito claim and its server check; returns whether S's top byte was ≥ 0x80.
private func cognitoRound(password: SecureBytes) throws -> Bool {
    let salt = BigUInt(bigEndianBytes: Array("zeroize-check-salt".utf8))
    let verifier = try CognitoSRPServer.verifier(
        realm: "AbCdEf123",
        identity: "user-id",
        password: password,
        salt: salt
    )
    let challenge = try CognitoSRPServer.makeChallenge(verifier: verifier)
    let ephemeral = try CognitoSRP.makeEphemeral()
    let a = ephemeral.publicValue
    let claim = try CognitoSRP.passwordClaim(
        realm: "AbCdEf123",
        identity: "user-id",
        password: password,
        ephemeral: ephemeral,
        serverPublicValue: challenge.serverPublicValue,
        salt: salt,
        secretBlock: challenge.secretBlock,
        timestamp: "Tue Dec 1 12:00:00 UTC 2026",
        recordingIntermediates: true
    )
    let high = (claim.intermediates?.premasterSecret.bitWidth ?? 0) % 8 == 0
    _ = try CognitoSRPServer.verifyClaim(
        realm: "AbCdEf123",
        identity: "user-id",
        verifier: verifier,
        clientPublicValue: a,
        signature: claim.signature,
        timestamp: "Tue Dec 1 12:00:00 UTC 2026",
        challenge: challenge
    )
    return high
}

private func readPassword() throws -> SecureBytes {
    var length = 0
    let buffer = SecureBytes(count: 4096) { raw in
        while length < raw.count {
            let n = read(0, raw.baseAddress! + length, raw.count - length)
            if n <= 0 { break }
            length += n
        }
    }
    while length > 0 && buffer.withUnsafeBytes({ $0[length - 1] }) == UInt8(ascii: "\n") { length -= 1 }
    return buffer.prefix(length)
}
