public import AuthCore

/// A device the service tracks for the user (`ListDevices`' `DeviceType`).
public struct CognitoDevice: Sendable, Equatable {
    /// `DeviceKey`.
    public var deviceKey: String
    /// `DeviceAttributes` (`device_name`, `device_status`, `last_ip_used`, …).
    public var attributes: [String: String]
    /// `DeviceCreateDate`.
    public var createdAt: Timestamp?
    /// `DeviceLastAuthenticatedDate`.
    public var lastAuthenticatedAt: Timestamp?

    /// `device_name`, when set.
    public var name: String? { attributes["device_name"] }

    /// A device.
    public init(deviceKey: String, attributes: [String: String], createdAt: Timestamp?, lastAuthenticatedAt: Timestamp?)
    {
        self.deviceKey = deviceKey
        self.attributes = attributes
        self.createdAt = createdAt
        self.lastAuthenticatedAt = lastAuthenticatedAt
    }
}

/// The device calls of a signed-in user (device tracking, "Working with user devices in your user
/// pool", Amazon Cognito Developer Guide): remember (`UpdateDeviceStatus`), forget (`ForgetDevice`),
/// list (`ListDevices`).
extension CognitoIdentityProviderAPI {
    /// The most devices `ListDevices` returns per page (the API's limit: 60).
    public static let devicePageLimit = 60

    /// `UpdateDeviceStatus`: `remembered` (the device skips MFA from now on, where the pool lets
    /// users opt in) or `not_remembered`.
    public func updateDeviceStatus(accessToken: String, deviceKey: String, remembered: Bool) async throws(AuthCoreError)
    {
        let request = CognitoIdentityProviderRequests.UpdateDeviceStatus(
            accessToken: accessToken,
            deviceKey: deviceKey,
            deviceRememberedStatus: remembered ? "remembered" : "not_remembered"
        )
        _ = try await call("UpdateDeviceStatus", request, answer: CognitoIdentityProviderAnswers.Empty.self)
    }

    /// `ForgetDevice`: the service stops tracking `deviceKey`.
    public func forgetDevice(accessToken: String, deviceKey: String) async throws(AuthCoreError) {
        _ = try await call(
            "ForgetDevice",
            CognitoIdentityProviderRequests.ForgetDevice(accessToken: accessToken, deviceKey: deviceKey),
            answer: CognitoIdentityProviderAnswers.Empty.self
        )
    }

    /// `ListDevices`, every page (at most `maximumPages` of ``devicePageLimit``).
    ///
    /// - Throws: `AuthCoreError.Code.malformedResponse` for an answer that repeats its pagination
    ///   token or has more than `maximumPages` pages.
    public func listDevices(accessToken: String, maximumPages: Int = 20) async throws(AuthCoreError) -> [CognitoDevice]
    {
        var devices: [CognitoDevice] = []
        var token: String?
        for _ in 0..<max(1, maximumPages) {
            let request = CognitoIdentityProviderRequests.ListDevices(
                accessToken: accessToken,
                limit: Self.devicePageLimit,
                paginationToken: token
            )
            let page = try await call("ListDevices", request, answer: CognitoIdentityProviderAnswers.ListDevices.self)
            for device in page.devices ?? [] {
                var attributes: [String: String] = [:]
                for attribute in device.deviceAttributes ?? [] { attributes[attribute.name] = attribute.value ?? "" }
                devices.append(
                    CognitoDevice(
                        deviceKey: device.deviceKey,
                        attributes: attributes,
                        createdAt: device.deviceCreateDate?.value,
                        lastAuthenticatedAt: device.deviceLastAuthenticatedDate?.value
                    )
                )
            }
            guard let next = page.paginationToken, !next.isEmpty else { return devices }
            guard next != token else {
                throw AuthCoreError(.malformedResponse, "ListDevices repeated its pagination token")
            }
            token = next
        }
        throw AuthCoreError(.malformedResponse, "ListDevices has more than \(max(1, maximumPages)) pages")
    }
}

/// The device lifecycle of the signed-in user (Amplify's `rememberDevice`, `forgetDevice`,
/// `fetchDevices`). "This device" is the one remembered for the session's user in the sign-in's
/// ``CognitoDeviceStore``.
extension CognitoSession {
    /// Marks this device remembered (`UpdateDeviceStatus`).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` when no device is remembered for the user
    ///   (the pool does not track devices, or `ConfirmDevice` failed: see ``CognitoTokens/warnings``).
    public func rememberDevice() async throws(AuthCoreError) {
        let (accessToken, device) = try await currentDevice()
        try await api.updateDeviceStatus(accessToken: accessToken, deviceKey: device.deviceKey, remembered: true)
    }

    /// Forgets a device (`ForgetDevice`): `deviceKey`, or this device when nil, which is then
    /// forgotten locally too (after the service answered).
    public func forgetDevice(_ deviceKey: String? = nil) async throws(AuthCoreError) {
        if let deviceKey {
            let session = try await tokens()
            try await api.forgetDevice(accessToken: session.accessToken, deviceKey: deviceKey)
            if let username = try await status().username,
                await signInClient.deviceStore.device(for: username)?.deviceKey == deviceKey
            {
                await signInClient.deviceStore.removeDevice(for: username)
            }
            return
        }
        let (accessToken, device) = try await currentDevice()
        try await api.forgetDevice(accessToken: accessToken, deviceKey: device.deviceKey)
        if let username = try await status().username { await signInClient.deviceStore.removeDevice(for: username) }
    }

    /// The user's tracked devices (`ListDevices`, every page).
    public func fetchDevices() async throws(AuthCoreError) -> [CognitoDevice] {
        try await api.listDevices(accessToken: try await tokens().accessToken)
    }

    private func currentDevice() async throws(AuthCoreError) -> (accessToken: String, device: CognitoRememberedDevice) {
        let accessToken = try await tokens().accessToken
        guard let username = try await status().username,
            let device = await signInClient.deviceStore.device(for: username)
        else {
            throw AuthCoreError(.invalidParameter, "no device is remembered for the signed-in user")
        }
        return (accessToken, device)
    }
}
