import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The Alibaba Cloud default chain against the `alibabacloud-credentials` SDK, case by case, as
/// AWSCredentialsChainTests does for botocore: each case's files under its own HOME and its
/// variables; the SDK (`scripts/aliyun_chain_oracle.py`: `Client().get_credential()` in a fresh
/// process per case) and ``AlibabaCloudCredentialsChain`` must both give the case's stated answer —
/// the same key id and source name (the SDK's `provider_name`), or both no credentials.
///
/// Peers: roles are assumed at the Alibaba STS stand-in (scripts/aliyun_sts_server.py), which checks
/// each RPC signature with aliyun-python-sdk-core, its nonce and time, and vends a fixed STS pair. The
/// ECS metadata service and the credentials URI are the oracle's loopback stand-in, reached through
/// `HTTP_PROXY` as both clients reach 100.100.100.200: its answers are scripted (version 2: the role
/// and its credentials only with the session token), so those cases check the protocol and the
/// chain's order, not a verifying server.
@Suite("Alibaba Cloud default credentials chain: AuthCore against alibabacloud-credentials", .serialized)
struct AlibabaCloudCredentialsChainTests {
    enum Outcome {
        /// Credentials with this key id (nil: whatever the STS stand-in vends, the same on both
        /// sides) from this source.
        case keys(String, String?, token: String? = nil)
        /// No source had credentials.
        case none
    }

    struct Case {
        let name: String
        /// `~/.aliyun/config.json`.
        var cliConfig: String? = nil
        /// `~/.alibabacloud/credentials.ini`.
        var ini: String? = nil
        var environment: [String: String] = [:]
        var files: [String: String] = [:]
        /// Reach the metadata stand-in (through HTTP_PROXY); otherwise the metadata source is off.
        var metadata = false
        let expect: Outcome
    }

    let oracle: JSONLinePeer
    let metadataPort: Int
    let sts: String
    let key: String
    let secret: String
    let role: String

    init() throws {
        sts = try peerEnvironment("AUTHCORE_ALIYUN_STS_URL")
        key = try peerEnvironment("AUTHCORE_ALIYUN_ACCESS_KEY_ID")
        secret = try peerEnvironment("AUTHCORE_ALIYUN_ACCESS_KEY_SECRET")
        role = try peerEnvironment("AUTHCORE_ALIYUN_ROLE_ARN")
        guard sts.hasPrefix("http://127.0.0.1:") else {
            throw PeerError(description: "the STS stand-in is not on loopback: \(sts)")
        }
        oracle = try JSONLinePeer(script: "aliyun_chain_oracle.py")
        metadataPort = try #require(try oracle.send(["op": "start"])["metadataPort"] as? Int)
    }

    func cases() -> [Case] {
        func cli(_ current: String, _ profiles: [[String: Any]]) -> String {
            // test constants
            let data = try! JSONSerialization.data(withJSONObject: ["current": current, "profiles": profiles])
            return String(decoding: data, as: UTF8.self)
        }
        let ak: [String: Any] = [
            "name": "ak", "mode": "AK", "access_key_id": "LTAIAKPROFILE00001", "access_key_secret": "ak-secret",
        ]
        let ramRole: [String: Any] = [
            "name": "role", "mode": "RamRoleArn", "access_key_id": key, "access_key_secret": secret,
            "ram_role_arn": role,
            "ram_session_name": "authcore-chain-cli", "expired_seconds": 900,
        ]
        let uri = "http://127.0.0.1:\(metadataPort)/credentials-uri"
        return [
            Case(
                name: "environment keys",
                environment: [
                    "ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAIENV00000000001", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "e",
                ],
                expect: .keys("env", "LTAIENV00000000001")
            ),
            Case(
                name: "environment keys with a security token",
                environment: [
                    "ALIBABA_CLOUD_ACCESS_KEY_ID": "STS.ENV00000000002", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "e",
                    "ALIBABA_CLOUD_SECURITY_TOKEN": "env-token",
                ],
                expect: .keys("env", "STS.ENV00000000002", token: "env-token")
            ),
            Case(
                name: "the environment before config.json",
                cliConfig: cli("ak", [ak]),
                environment: [
                    "ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAIENV00000000003", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "e",
                ],
                expect: .keys("env", "LTAIENV00000000003")
            ),
            Case(
                name: "a key id without its secret, nothing else",
                environment: ["ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAIONLY"],
                expect: .none
            ),
            Case(
                name: "config.json: the current AK profile",
                cliConfig: cli("ak", [ak]),
                expect: .keys("cli_profile/static_ak", "LTAIAKPROFILE00001")
            ),
            Case(
                name: "config.json: ALIBABA_CLOUD_PROFILE over current",
                cliConfig: cli(
                    "ak",
                    [
                        ak,
                        [
                            "name": "other", "mode": "AK", "access_key_id": "LTAIOTHER000000001",
                            "access_key_secret": "o",
                        ],
                    ]
                ),
                environment: ["ALIBABA_CLOUD_PROFILE": "other"],
                expect: .keys("cli_profile/static_ak", "LTAIOTHER000000001")
            ),
            Case(
                name: "config.json: StsToken",
                cliConfig: cli(
                    "sts",
                    [
                        [
                            "name": "sts", "mode": "StsToken", "access_key_id": "STS.PROFILE0000001",
                            "access_key_secret": "s", "sts_token": "profile-token",
                        ]
                    ]
                ),
                expect: .keys("cli_profile/static_sts", "STS.PROFILE0000001", token: "profile-token")
            ),
            Case(
                name: "config.json: a profile without its secret, nothing else",
                cliConfig: cli("bad", [["name": "bad", "mode": "AK", "access_key_id": "LTAIX"]]),
                expect: .none
            ),
            Case(
                name: "config.json: a profile that is not there, nothing else",
                cliConfig: cli("ghost", [ak]),
                expect: .none
            ),
            Case(
                name: "config.json: a mode in the wrong case, nothing else",
                cliConfig: cli(
                    "lower",
                    [["name": "lower", "mode": "ak", "access_key_id": "LTAIX", "access_key_secret": "x"]]
                ),
                expect: .none
            ),
            Case(
                name: "config.json that is not JSON: the INI file next",
                cliConfig: "{ not json",
                ini: "[default]\ntype = access_key\naccess_key_id = LTAIINI00000000001\naccess_key_secret = i\n",
                expect: .keys("profile/static_ak", "LTAIINI00000000001")
            ),
            Case(
                name: "config.json disabled: the INI file next",
                cliConfig: cli("ak", [ak]),
                ini: "[default]\ntype = access_key\naccess_key_id = LTAIINI00000000002\naccess_key_secret = i\n",
                environment: ["ALIBABA_CLOUD_CLI_PROFILE_DISABLED": "TRUE"],
                expect: .keys("profile/static_ak", "LTAIINI00000000002")
            ),
            Case(
                name: "config.json: RamRoleArn at the STS stand-in",
                cliConfig: cli("role", [ramRole]),
                expect: .keys("cli_profile/ram_role_arn/static_ak", nil)
            ),
            Case(
                name: "config.json: ChainableRamRoleArn from an AK profile",
                cliConfig: cli(
                    "chain",
                    [
                        ["name": "source", "mode": "AK", "access_key_id": key, "access_key_secret": secret],
                        [
                            "name": "chain", "mode": "ChainableRamRoleArn", "source_profile": "source",
                            "ram_role_arn": role, "ram_session_name": "authcore-chained",
                        ],
                    ]
                ),
                expect: .keys("cli_profile/ram_role_arn/static_ak", nil)
            ),
            Case(
                name: "config.json: RamRoleArn with a wrong secret (STS refuses), nothing else",
                cliConfig: cli("role", [ramRole.merging(["access_key_secret": "wrong-secret"]) { _, new in new }]),
                expect: .none
            ),
            Case(
                name: "config.json: RamRoleArn with expired_seconds under 900, nothing else",
                cliConfig: cli("role", [ramRole.merging(["expired_seconds": 600]) { _, new in new }]),
                expect: .none
            ),
            Case(
                name: "config.json: EcsRamRole with the metadata service off, nothing else",
                cliConfig: cli("ecs", [["name": "ecs", "mode": "EcsRamRole", "ram_role_name": "authcore-ecs-role"]]),
                expect: .none
            ),
            Case(
                name: "config.json: EcsRamRole",
                cliConfig: cli("ecs", [["name": "ecs", "mode": "EcsRamRole", "ram_role_name": "authcore-ecs-role"]]),
                metadata: true,
                expect: .keys("cli_profile/ecs_ram_role", "STS.ECSKEY0000001", token: "ecs-token")
            ),
            Case(
                name: "INI: access_key, the value cut at #",
                ini:
                    "[default]\ntype = access_key # a comment\naccess_key_id = LTAIINI00000000003#note\naccess_key_secret = i\n",
                expect: .keys("profile/static_ak", "LTAIINI00000000003")
            ),
            Case(
                name: "INI: ALIBABA_CLOUD_CREDENTIALS_FILE and ALIBABA_CLOUD_PROFILE",
                environment: [
                    "ALIBABA_CLOUD_CREDENTIALS_FILE": "FILE:elsewhere/creds.ini", "ALIBABA_CLOUD_PROFILE": "project",
                ],
                files: [
                    "elsewhere/creds.ini":
                        "[default]\ntype = access_key\naccess_key_id = LTAIWRONG\naccess_key_secret = w\n[project]\ntype = access_key\naccess_key_id = LTAIINI00000000004\naccess_key_secret = p\n"
                ],
                expect: .keys("profile/static_ak", "LTAIINI00000000004")
            ),
            Case(
                name: "INI: no type, nothing else",
                ini: "[default]\naccess_key_id = LTAIX\naccess_key_secret = x\n",
                expect: .none
            ),
            Case(
                name: "INI: ~/.alibabacloud/credentials without .ini is not read",
                files: [
                    ".alibabacloud/credentials":
                        "[default]\ntype = access_key\naccess_key_id = LTAIX\naccess_key_secret = x\n"
                ],
                expect: .none
            ),
            Case(
                name: "INI: ram_role_arn at the STS stand-in",
                ini:
                    "[default]\ntype = ram_role_arn\naccess_key_id = \(key)\naccess_key_secret = \(secret)\nrole_arn = \(role)\nrole_session_name = authcore-chain-ini\n",
                expect: .keys("profile/ram_role_arn/static_ak", nil)
            ),
            Case(
                name: "INI: ecs_ram_role",
                ini: "[default]\ntype = ecs_ram_role\nrole_name = authcore-ecs-role\n",
                metadata: true,
                expect: .keys("profile/ecs_ram_role", "STS.ECSKEY0000001", token: "ecs-token")
            ),
            Case(
                name: "ECS metadata: the role the service lists (version 2 token)",
                metadata: true,
                expect: .keys("ecs_ram_role", "STS.ECSKEY0000001", token: "ecs-token")
            ),
            Case(
                name: "ECS metadata: the role ALIBABA_CLOUD_ECS_METADATA names",
                environment: ["ALIBABA_CLOUD_ECS_METADATA": "authcore-ecs-role"],
                metadata: true,
                expect: .keys("ecs_ram_role", "STS.ECSKEY0000001", token: "ecs-token")
            ),
            Case(
                name: "ECS metadata: a role the service does not have, nothing else",
                environment: ["ALIBABA_CLOUD_ECS_METADATA": "other-role"],
                metadata: true,
                expect: .none
            ),
            Case(
                name: "the credentials URI",
                environment: ["ALIBABA_CLOUD_CREDENTIALS_URI": uri],
                expect: .keys("credential_uri", "STS.URIKEY0000001", token: "uri-token")
            ),
            Case(
                name: "the INI file before the credentials URI",
                ini: "[default]\ntype = access_key\naccess_key_id = LTAIINI00000000005\naccess_key_secret = i\n",
                environment: ["ALIBABA_CLOUD_CREDENTIALS_URI": uri],
                expect: .keys("profile/static_ak", "LTAIINI00000000005")
            ),
            Case(name: "nothing anywhere", expect: .none),
        ]
    }

    func prepare(_ testCase: Case, in root: URL) throws -> [String: String] {
        let home = root.appendingPathComponent(
            testCase.name.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(String.init).joined()
        )
        func write(_ relative: String, _ contents: String) throws {
            let url = home.appendingPathComponent(relative)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(contents.utf8).write(to: url)
        }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        if let config = testCase.cliConfig { try write(".aliyun/config.json", config) }
        if let ini = testCase.ini { try write(".alibabacloud/credentials.ini", ini) }
        for (name, contents) in testCase.files { try write(name, contents) }
        var environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
        for (name, value) in testCase.environment {
            environment[name] =
                value.hasPrefix("FILE:") ? home.appendingPathComponent(String(value.dropFirst(5))).path : value
        }
        // The metadata service is reached only through the loopback stand-in: with it, HTTP_PROXY names
        // it; without it, the source is off. Nothing can reach 100.100.100.200 itself.
        if testCase.metadata {
            environment["HTTP_PROXY"] = "http://127.0.0.1:\(metadataPort)"
        } else {
            environment["ALIBABA_CLOUD_ECS_METADATA_DISABLED"] = "true"
        }
        return environment
    }

    func resolveWithAuthCore(_ environment: [String: String]) async -> [String: String] {
        do {
            let chain = try AlibabaCloudCredentialsChain(
                environment: ConfigurationEnvironment(environment),
                stsEndpoint: sts
            )
            let resolved = try await chain.resolve()
            var answer = ["accessKeyId": resolved.credentials.accessKeyId, "source": resolved.source]
            if let token = resolved.credentials.sessionToken { answer["securityToken"] = token }
            return answer
        } catch {
            return ["code": "\(error.code)", "message": error.reason]
        }
    }

    @Test("at least 25 cases: the SDK and AuthCore both give each case's stated answer")
    func matrix() async throws {
        defer { oracle.close() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-aliyun-chain-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let all = cases()
        #expect(all.count >= 25)
        for testCase in all {
            let environment = try prepare(testCase, in: root)
            let sdk = try oracle.send(["op": "resolve", "env": environment, "sts": sts]).compactMapValues {
                $0 as? String
            }
            let authCore = await resolveWithAuthCore(environment)
            switch testCase.expect {
            case .keys(let source, let key, let token):
                #expect(
                    sdk["source"] == source && (key == nil || sdk["accessKeyId"] == key),
                    "\(testCase.name): the SDK gave \(sdk)"
                )
                #expect(
                    authCore["source"] == source && authCore["accessKeyId"] == sdk["accessKeyId"],
                    "\(testCase.name): AuthCore gave \(authCore)"
                )
                if let token {
                    #expect(
                        sdk["securityToken"] == token && authCore["securityToken"] == token,
                        "\(testCase.name): tokens \(sdk) \(authCore)"
                    )
                }
            case .none:
                #expect(sdk["error"] == "CredentialException", "\(testCase.name): the SDK gave \(sdk)")
                #expect(
                    authCore["code"] == "\(AuthCoreError.Code.credentialsUnavailable)",
                    "\(testCase.name): AuthCore gave \(authCore)"
                )
            }
        }
    }
}
