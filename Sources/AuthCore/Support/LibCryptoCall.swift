internal import CAuthCoreLibCrypto

/// Turns OpenSSL's error queue into an ``AuthCoreError`` (library and reason codes only, never
/// buffer contents) and clears the queue.
@inline(never)
func libcryptoError(_ operation: StaticString, file: String = #fileID, line: UInt = #line) -> AuthCoreError {
    let packed = ERR_get_error()
    ERR_clear_error()
    let library = Int((packed >> 23) & 0xFF)
    let reason = Int(packed & 0x7FFFFF)
    return AuthCoreError(
        .libcryptoFailure,
        "\(operation) failed (OpenSSL library \(library), reason \(reason))",
        file: file,
        line: line
    )
}
