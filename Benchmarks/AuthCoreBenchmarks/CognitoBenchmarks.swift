import AuthCore
import CAuthCoreBaselines

/// The client-side computation of one Cognito userSRP sign-in, with and without a prepared `(a, A)`,
/// beside three `mpz_powm_sec` in C and pycognito.
func cognitoBenchmarks() -> [BenchmarkCase] {
    var random = BenchmarkRandom(state: 0x5EED_0003)
    let group = CognitoSRP.group
    // A realistic challenge: B = k·v + g^b from a server-side verifier, a 16-byte salt, a 1 KiB secret block.
    let salt = BigUInt(bigEndianBytes: random.bytes(16))
    let password = SecureBytes(Array("Corr3ct-Horse-Battery!".utf8))
    let userId = "7dc1653c-8866-499d-9bd0-05662060d645"
    guard
        let verifier = try? CognitoSRPServer.verifier(
            realm: "AbCdEf123",
            identity: userId,
            password: password,
            salt: salt
        ),
        let challenge = try? CognitoSRPServer.challenge(
            privateValue: BigUInt(bigEndianBytes: random.bytes(32)),
            verifier: verifier,
            secretBlock: random.bytes(1024)
        )
    else { return [] }
    let b = challenge.serverPublicValue
    let block = challenge.secretBlock
    let timestamp = Timestamp(year: 2026, month: 11, day: 29, hour: 22, minute: 0, second: 0)?.cognitoTimestamp ?? ""
    let nBytes = group.modulus.minimalBigEndianBytes
    guard let prepared = try? CognitoSRP.makeEphemeral() else { return [] }

    func claim(_ ephemeral: borrowing SRPPrivateValue) -> String? {
        try? CognitoSRP.passwordClaim(
            realm: "AbCdEf123",
            identity: userId,
            password: password,
            ephemeral: ephemeral,
            serverPublicValue: b,
            salt: salt,
            secretBlock: block,
            timestamp: timestamp
        ).signature
    }

    return [
        BenchmarkCase(name: "cognito.login.client", note: "a: 256 bits; A, u, x, S, HKDF, claim") { n in
            for _ in 0..<n {
                guard let ephemeral = try? CognitoSRP.makeEphemeral() else { return }
                blackHole(claim(ephemeral))
            }
        },
        BenchmarkCase(name: "c.cognito.login.client", note: "three mpz_powm_sec: 256, 256, 513-bit exponents") { n in
            let checksum = nBytes.withUnsafeBytes {
                c_authcore_baseline_cognito_client_powm_sec($0.baseAddress, $0.count, n)
            }
            blackHole(checksum)
        },
        BenchmarkCase(name: "cognito.login.client.prepared", note: "(a, A) prepared while the user typed") { n in
            for _ in 0..<n { blackHole(claim(prepared)) }
        },
    ]
}
