import AuthCore

/// `aead`: `algorithm` (`aes-256-gcm`), `key_hex`, `nonce_hex`, `aad_hex`, and either
/// `plaintext_hex` with `expect.ciphertext_hex` and `expect.tag_hex` (sealing; the sealed value must
/// also open to the plaintext), or `ciphertext_hex` and `tag_hex` with `expect.plaintext_hex` or
/// `expect.fails: true` (opening; a case that must fail passes only with `signatureMismatch`).
struct AEADVectorKind: VectorKind {
    let name = "aead"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: ["ciphertext_hex", "tag_hex", "plaintext_hex", "fails"])
        guard try c.string("algorithm") == "aes-256-gcm" else {
            throw .invalid("algorithm", "only aes-256-gcm is supported")
        }
        let key = SecureBytes(try c.hexBytes("key_hex"))
        let nonce = try c.hexBytes("nonce_hex")
        let aad = try c.hexBytes("aad_hex")
        if c.has("plaintext_hex") {
            guard Set(fields) == ["ciphertext_hex", "tag_hex"] else {
                throw .invalid("expect", "sealing expects ciphertext_hex and tag_hex")
            }
            let plaintext = try c.hexBytes("plaintext_hex")
            let sealed = try c.evaluating("plaintext_hex") {
                try AES256GCM.seal(SecureBytes(plaintext), key: key, nonce: nonce, associatedData: aad)
            }
            try c.checkHex(
                "expect.ciphertext_hex",
                expected: try c.string("expect.ciphertext_hex"),
                got: Array(sealed.dropLast(AES256GCM.tagByteCount))
            )
            try c.checkHex(
                "expect.tag_hex",
                expected: try c.string("expect.tag_hex"),
                got: Array(sealed.suffix(AES256GCM.tagByteCount))
            )
            let opened = try c.evaluating("expect") {
                try AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: aad)
            }
            try c.checkHex(
                "plaintext_hex (opened again)",
                expected: try c.string("plaintext_hex"),
                got: opened.withUnsafeBytes { Array($0) }
            )
            return
        }
        let sealed = try c.hexBytes("ciphertext_hex") + (try c.hexBytes("tag_hex"))
        if try c.optionalBool("expect.fails") == true {
            do {
                _ = try AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: aad)
                throw CaseFailure.mismatch("expect.fails", expected: "signatureMismatch", got: "opened")
            } catch let failure as CaseFailure {
                throw failure
            } catch let error as AuthCoreError where error.code == .signatureMismatch {
                return
            } catch {
                throw .mismatch("expect.fails", expected: "signatureMismatch", got: "\(error)")
            }
        }
        let opened = try c.evaluating("ciphertext_hex") {
            try AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: aad)
        }
        try c.checkHex(
            "expect.plaintext_hex",
            expected: try c.string("expect.plaintext_hex"),
            got: opened.withUnsafeBytes { Array($0) }
        )
    }
}
