import AuthCore
import AuthCoreClients
import AuthCoreServer
import Foundation

/// `authcore oss sign-string --policy FILE`: the app server's half of self-signed mode, for a shell
/// script or a small server to call per request. The request comes on stdin (it names the caller's
/// object, not a secret), the key from the environment, and nothing is signed outside the policy.
enum OSSSignStringCommand {
    static func run(_ arguments: ArraySlice<String>, help: String) throws -> Int32 {
        let parsed = try parseArguments(arguments, specs: [OptionSpec(names: ["--policy"], kind: .value)], help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let policyPath = try parsed.required("--policy")
        let policy: OSSSigningPolicy
        do { policy = try OSSSigningPolicyFile.policy(contentsOfFile: policyPath) } catch {
            throw UsageError("--policy \(error.reason)")
        }
        let credentials = try credentialsFromEnvironment(
            id: "OSS_ACCESS_KEY_ID",
            secret: "OSS_ACCESS_KEY_SECRET",
            token: "OSS_SECURITY_TOKEN"
        )
        let request: OSSSignatureRequest
        do {
            request = try JSONDecoder().decode(
                OSSSignatureRequest.self,
                from: Data(try readFile("-", limit: 131_072, option: "stdin"))
            )
        } catch let usage as UsageError {
            throw usage
        } catch {
            throw CommandFailure("the signing request on stdin is not {\"version\":…,\"stringToSign\":…} JSON")
        }
        do {
            let authority = try OSSSigningAuthority(credentials: credentials, policy: policy)
            let signed = try authority.sign(request, at: SystemClock().now())
            printOut(
                try jsonText(
                    .object(["accessKeyId": .string(signed.accessKeyId), "signature": .string(signed.signature)])
                )
            )
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure("\(error.code): \(error.reason)")
        }
    }
}
