import AuthCore
import AuthCoreClients

/// The account self-service subcommands of `authcore cognito` on a stored session (`--store`):
/// change-password, attributes, verify-attribute, mfa-preference, delete-user; and resend-code for a
/// user not yet confirmed. The help is ``CognitoCommand/help``.
enum CognitoAccountCommand {
    static let subcommands = [
        "change-password", "attributes", "verify-attribute", "mfa-preference", "delete-user", "resend-code", "devices",
    ]

    static func run(_ sub: String, _ arguments: ArraySlice<String>) async throws -> Int32 {
        switch sub {
        case "change-password": return try await changePassword(arguments)
        case "attributes": return try await attributes(arguments)
        case "verify-attribute": return try await verifyAttribute(arguments)
        case "mfa-preference": return try await mfaPreference(arguments)
        case "delete-user": return try await deleteUser(arguments)
        case "devices": return try await devices(arguments)
        default: return try await resendCode(arguments)
        }
    }

    /// The session of `--store`, for a command that takes `extra` options and flags besides
    /// `--store` and `--endpoint`.
    static func session(
        _ arguments: ArraySlice<String>,
        options extra: [String] = [],
        repeated: [String] = [],
        flags: [String] = []
    ) async throws -> (CognitoSession, ParsedArguments) {
        let specs =
            CognitoCommand.options(["--store", "--endpoint"] + extra, flags: flags)
            + repeated.map { OptionSpec(names: [$0], kind: .repeatedValue) }
        let parsed = try parseArguments(arguments, specs: specs, help: CognitoCommand.help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let (session, _) = try await CognitoCommand.storedSession(
            try parsed.required("--store"),
            endpoint: parsed.value("--endpoint")
        )
        return (session, parsed)
    }

    /// Runs a call of the service, reporting its refusal as a failure (exit 1).
    static func calling<T: Sendable>(_ body: () async throws(AuthCoreError) -> T) async throws -> T {
        do { return try await body() } catch { throw CommandFailure(error.reason) }
    }

    static func changePassword(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let (session, _) = try await session(arguments)
        let previous: SecureBytes
        let proposed: SecureBytes
        if let fromEnvironment = takeSecretEnvironment("COGNITO_PASSWORD") {
            previous = fromEnvironment
            guard let new = takeSecretEnvironment("COGNITO_NEW_PASSWORD") else {
                throw UsageError("COGNITO_PASSWORD is set, COGNITO_NEW_PASSWORD is not")
            }
            proposed = new
        } else {
            // Two lines on stdin: the current password, then the new one.
            let lines = try readSecretStandardInput(limit: 131_072)
            guard let split = lines.withUnsafeBytes({ $0.firstIndex(of: UInt8(ascii: "\n")) }) else {
                throw UsageError(
                    "give the current and the new password on two lines of stdin (or COGNITO_PASSWORD and COGNITO_NEW_PASSWORD)"
                )
            }
            // A CRLF line end leaves no CR on the current password.
            let end = split > 0 && lines.withUnsafeBytes({ $0[split - 1] }) == UInt8(ascii: "\r") ? split - 1 : split
            previous = lines.withUnsafeBytes { SecureBytes($0[..<end]) }
            proposed = lines.withUnsafeBytes { SecureBytes($0[(split + 1)...]) }
        }
        try await calling { () async throws(AuthCoreError) in
            try await session.changePassword(previous: previous, proposed: proposed)
        }
        printOut(#"{"status":"passwordChanged"}"#)
        return 0
    }

    static func attributes(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let (session, parsed) = try await session(arguments, repeated: ["--set"])
        // bytes-lint: attribute names from argv, split on their first ASCII '=' byte.
        var updates: [String: String] = [:]
        for pair in parsed.all("--set") {
            let bytes = Array(pair.utf8)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")), equals > 0 else {
                throw UsageError("--set takes NAME=VALUE, got '\(pair)'")
            }
            updates[String(decoding: bytes[..<equals], as: UTF8.self)] = String(
                decoding: bytes[(equals + 1)...],
                as: UTF8.self
            )
        }
        if updates.isEmpty {
            let attributes = try await calling { () async throws(AuthCoreError) in
                try await session.fetchUserAttributes()
            }
            printOut(try jsonText(["attributes": JSONValue(attributes)]))
            return 0
        }
        let pending = try await calling { () async throws(AuthCoreError) in
            try await session.updateUserAttributes(updates)
        }
        // bytes-lint: an output document's member names (attribute names as the service sent them).
        var object: [String: JSONValue] = [:]
        for (name, delivery) in pending { object[name] = delivery.json }
        printOut(try jsonText(["status": "updated", "pendingVerification": .object(object)]))
        return 0
    }

    static func verifyAttribute(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let (session, parsed) = try await session(arguments, options: ["--attribute"], flags: ["--send-code"])
        let name = try parsed.required("--attribute")
        if parsed.has("--send-code") {
            let delivery = try await calling { () async throws(AuthCoreError) in
                try await session.sendUserAttributeVerificationCode(for: name)
            }
            printOut(try jsonText(["status": "codeSent", "codeDeliveryDetails": delivery?.json ?? .null]))
            return 0
        }
        let code = try codeFromInput()
        try await calling { () async throws(AuthCoreError) in try await session.confirmUserAttribute(name, code: code) }
        printOut(#"{"status":"verified"}"#)
        return 0
    }

    static func mfaPreference(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let (session, parsed) = try await session(arguments, options: ["--sms", "--totp", "--email"])
        func preference(_ option: String) throws(UsageError) -> CognitoMFAPreference? {
            guard let text = parsed.value(option) else { return nil }
            switch text {
            case "enabled": return .enabled
            case "disabled": return .disabled
            case "preferred": return .preferred
            case "not-preferred": return .notPreferred
            default: throw UsageError("\(option) takes enabled, disabled, preferred or not-preferred")
            }
        }
        let sms = try preference("--sms"), totp = try preference("--totp"), email = try preference("--email")
        if sms != nil || totp != nil || email != nil {
            try await calling { () async throws(AuthCoreError) in
                try await session.updateMFAPreference(sms: sms, totp: totp, email: email)
            }
        }
        let status = try await calling { () async throws(AuthCoreError) in try await session.fetchMFAPreference() }
        printOut(
            try jsonText([
                "enabled": .array(status.enabled.map { .string($0.rawValue) }),
                "preferred": status.preferred.map { .string($0.rawValue) } ?? .null,
            ])
        )
        return 0
    }

    static func deleteUser(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let (session, _) = try await session(arguments)
        try await calling { () async throws(AuthCoreError) in try await session.deleteUser() }
        printOut(#"{"status":"deleted"}"#)
        return 0
    }

    static func devices(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let (session, parsed) = try await session(arguments, options: ["--forget"])
        if let key = parsed.value("--forget") {
            try await calling { () async throws(AuthCoreError) in try await session.forgetDevice(key) }
        }
        let devices = try await calling { () async throws(AuthCoreError) in try await session.fetchDevices() }
        let list: [JSONValue] = devices.map { device in
            [
                "deviceKey": .string(device.deviceKey), "name": JSONValue(device.name),
                "attributes": JSONValue(device.attributes),
                "lastAuthenticatedAt": JSONValue(device.lastAuthenticatedAt?.iso8601),
            ]
        }
        printOut(try jsonText(["devices": .array(list)]))
        return 0
    }

    static func resendCode(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let parsed = try parseArguments(
            arguments,
            specs: CognitoCommand.options([
                "--region", "--user-pool-id", "--client-id", "--username", "--endpoint", "--amplify-outputs",
            ]),
            help: CognitoCommand.help
        )
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let username = try parsed.required("--username")
        let configuration = try CognitoCommand.configuration(parsed)
        let api = CognitoIdentityProviderAPI(configuration: configuration, transport: try CLITransport.make(for: .aws))
        let delivery = try await calling { () async throws(AuthCoreError) in
            try await api.resendSignUpCode(username: username)
        }
        printOut(try jsonText(["status": "codeSent", "codeDeliveryDetails": delivery?.json ?? .null]))
        return 0
    }

    /// A code from `COGNITO_CODE` or stdin (one trailing newline dropped).
    static func codeFromInput() throws -> String {
        let bytes = try takeSecretEnvironment("COGNITO_CODE") ?? readSecretStandardInput(limit: 4096)
        return bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
}

extension CognitoCodeDelivery {
    /// `{"deliveryMedium":…,"destination":…}`, as the sign-in's next steps print it.
    var json: JSONValue { ["deliveryMedium": JSONValue(medium), "destination": JSONValue(destination)] }
}
