public import AuthCore

/// What signs passkey ceremonies for the library (the app's part of WebAuthn, W3C Web
/// Authentication Level 3 §5): on Apple platforms an `ASAuthorization` passkey request, in tests
/// and the CLI ``SoftwareWebAuthnAuthenticator``. Options come in and responses go out as the
/// specification's JSON forms, the ones Cognito sends and takes.
public protocol WebAuthnAuthenticator: Sendable {
    /// `navigator.credentials.create()`: a new credential for `options`
    /// (`PublicKeyCredentialCreationOptionsJSON`, §5.4); returns `RegistrationResponseJSON` (§5.1).
    func createCredential(options: [UInt8]) async throws(AuthCoreError) -> [UInt8]

    /// `navigator.credentials.get()`: an assertion for `options`
    /// (`PublicKeyCredentialRequestOptionsJSON`, §5.5); returns `AuthenticationResponseJSON` (§5.1).
    func getAssertion(options: [UInt8]) async throws(AuthCoreError) -> [UInt8]
}
