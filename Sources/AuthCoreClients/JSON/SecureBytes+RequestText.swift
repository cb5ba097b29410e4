import AuthCore

extension SecureBytes {
    /// The bytes as a Swift `String`, for a JSON request body that must carry the secret itself
    /// (`PASSWORD` of `USER_PASSWORD_AUTH`, `SignUp`'s password, `ClientSecret`). The one place the
    /// clients make this copy: a `String` (and the body built from it) cannot be wiped.
    var unwipedRequestText: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}
