import AuthCore
internal import CAuthCoreLibCrypto

/// What memcheck reports inside OpenSSL's P-256 code when the SigV4a scalar stays secret there
/// (`make ctgrind-openssl`): the key import (BN_bin2bn, EC_POINT_mul, EVP_PKEY_fromdata) and an ECDSA
/// signature, called through the same C shim SigV4AKey uses. The constant-flow gate stops at this
/// boundary (SigV4AKey declassifies the scalar as it hands it over), because the code is OpenSSL's:
/// this is an observation with no pass or fail, printed for the record.
func runOpenSSLObservation() -> Int32 {
    guard ConstantFlow.isChecking else {
        print("ctgrind-openssl: not running under valgrind memcheck built with -DAUTHCORE_CONSTANT_FLOW_CHECK")
        return 2
    }
    guard
        let credentials = try? Credentials(
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: secret("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        ),
        let scalar = try? SigV4AKey.withDerivedPrivateScalar(
            credentials,
            { d throws(AuthCoreError) in SecureBytes(copying: d) }
        )
    else {
        print("ctgrind-openssl: the derivation failed")
        return 1
    }
    scalar.withUnsafeBytes { ConstantFlow.classify($0) }  // the copy is as secret as the scalar
    var point = [UInt8](repeating: 0, count: Int(C_AUTHCORE_P256_POINT_BYTES))
    let before = ConstantFlow.reportedErrors
    guard
        let key = scalar.withUnsafeBytes({ d in
            point.withUnsafeMutableBytes { c_authcore_p256_key_pair_new(d.baseAddress, $0.baseAddress) }
        })
    else {
        print("ctgrind-openssl: OpenSSL could not build the key")
        return 1
    }
    defer { EVP_PKEY_free(key) }
    let afterImport = ConstantFlow.reportedErrors
    guard let context = c_authcore_ecdsa_sign_context_new(key) else {
        print("ctgrind-openssl: no signing context")
        return 1
    }
    defer { EVP_PKEY_CTX_free(context) }
    let digest = [UInt8](repeating: 0x5A, count: 32)
    var der = [UInt8](repeating: 0, count: 80)
    let length = digest.withUnsafeBytes { hash in
        der.withUnsafeMutableBytes {
            c_authcore_ecdsa_sign_digest(context, hash.baseAddress, hash.count, $0.baseAddress, $0.count)
        }
    }
    let afterSign = ConstantFlow.reportedErrors
    print(
        "ctgrind-openssl: key import and d·G: \(afterImport - before) reports; one ECDSA signature: \(afterSign - afterImport) reports"
            + (length > 0 ? "" : " (the signature failed)")
    )
    print("ctgrind-openssl: an observation of OpenSSL's code, not a gate (the sites are in .build/ctgrind-openssl.log)")
    return length > 0 ? 0 : 1
}
