import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCore
@testable import AuthCoreClients

/// Secrets kept out of `String`s on their way through JSON: taken out of an answer before the
/// decoder reads it (SecretJSONMembers), spliced into a request body after encoding (SecretJSONValues).
@Suite("Secret members of JSON answers and requests: parsed from and written to wiping storage")
struct SecretJSONTests {
    let path = ["Credentials", "SecretKey"]

    func members(_ text: String, _ paths: [[String]]? = nil) throws(AuthCoreError) -> SecretJSONMembers {
        try SecretJSONMembers(parsing: SecureBytes(Array(text.utf8)), paths: paths ?? [path], context: "Test")
    }

    func text(_ secret: SecureBytes?) -> String? { secret?.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    func parsed(_ bytes: [UInt8]) -> NSDictionary? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? NSDictionary
    }

    @Test(
        "a nested secret with every kind of escape is unescaped; the redacted document is the original with \"\" in its place"
    )
    func unescapes() throws {
        let document =
            #"{"IdentityId":"id","Credentials":{"AccessKeyId":"AKID","SecretKey":"a\"b\\c\/d\u00e9\ud83d\ude00\n\t\b\f\r","Expiration":1.5e9}}"#
        let taken = try members(document)
        #expect(text(taken.values[0]) == "a\"b\\c/d\u{e9}\u{1F600}\n\t\u{8}\u{c}\r")
        let expected = try #require(parsed(Array(document.utf8))?.mutableCopy() as? NSMutableDictionary)
        let credentials = try #require(
            (expected["Credentials"] as? NSDictionary)?.mutableCopy() as? NSMutableDictionary
        )
        credentials["SecretKey"] = ""
        expected["Credentials"] = credentials
        #expect(parsed(taken.redacted) == expected)
        #expect(!String(decoding: taken.redacted, as: UTF8.self).contains("a\\\"b"))
    }

    @Test("only the member at the path is taken: the same name at the top, in an array, or under another object stays")
    func onlyThePath() throws {
        let document =
            #"{"SecretKey":"top","List":[{"Credentials":{"SecretKey":"in-array"}}],"Other":{"SecretKey":"other"},"Credentials":{"SecretKey":"inner"}}"#
        let taken = try members(document)
        #expect(text(taken.values[0]) == "inner")
        let redacted = String(decoding: taken.redacted, as: UTF8.self)
        #expect(redacted.contains(#""top""#) && redacted.contains(#""in-array""#) && redacted.contains(#""other""#))
        #expect(!redacted.contains("inner"))
    }

    @Test("an absent member, or one that is not a string, gives nil and leaves the document as it was")
    func absentOrNotString() throws {
        for document in [
            #"{"Credentials":{"AccessKeyId":"A"}}"#, #"{"Credentials":{"SecretKey":42}}"#,
            #"{"Credentials":{"SecretKey":null}}"#, "[]",
        ] {
            let taken = try members(document)
            #expect(taken.values[0] == nil, "\(document)")
            #expect(taken.redacted == Array(document.utf8), "\(document)")
        }
    }

    @Test("valid JSON of every shape is read (RFC 8259 numbers, literals, whitespace, empty containers)")
    func validDocuments() throws {
        let documents = [
            " { \"a\" : [ ] , \"b\" : { } , \"c\" : [ true , false , null , -0 , 0.5 , -12.25e+10 , 1E-3 , 7 ] ,\r\n\t\"Credentials\" : { \"SecretKey\" : \"s\" } } ",
            #"{"Credentials":{"SecretKey":""}}"#, #""just a string""#, "123", "null",
        ]
        for document in documents {
            #expect(throws: Never.self, "\(document)") { _ = try members(document) }
        }
        #expect(text(try members(documents[0]).values[0]) == "s")
        #expect(text(try members(documents[1]).values[0]) == "")
    }

    @Test(
        "what is not JSON is refused with the context named, never a trap",
        arguments: [
            "", "{", "}", #"{"a":}"#, #"{"a":tru}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":1e}"#,
            "{\"a\":\"\u{01}\"}", #"{"a":"\q"}"#,
            #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#, #"{"a":"\ud800\u0041"}"#, #"{"a":"\u12"}"#, #"{"a":"\u12G4"}"#,
            "[1,]", #"{"a":1,}"#,
            #"{"a":1}x"#, #"{"a" 1}"#, #"{a:1}"#, #"{"a":1 "b":2}"#, #"{"a":"unterminated}"#, "[",
            #"{"Credentials":{"SecretKey":"x"#,
        ]
    )
    func refused(_ document: String) {
        #expect {
            try members(document)
        } throws: { error in
            guard let error = error as? AuthCoreError else { return false }
            return error.code == .malformedResponse && error.reason.hasPrefix("Test: ")
        }
    }

    @Test("a secret member twice, a secret that is not UTF-8, and nesting past the limit are refused")
    func refusedShapes() throws {
        #expect(throws: AuthCoreError.self) { try members(#"{"Credentials":{"SecretKey":"a","SecretKey":"b"}}"#) }
        var invalid = Array(#"{"Credentials":{"SecretKey":"ab"}}"#.utf8)
        invalid[invalid.count - 4] = 0xFF  // the "b"
        #expect(throws: AuthCoreError.self) {
            try SecretJSONMembers(parsing: SecureBytes(invalid), paths: [path], context: "Test")
        }
        let depth = SecretJSONMembers.maximumDepth
        let deep = String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)
        #expect(throws: AuthCoreError.self) { try members(deep) }
        let limit = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: Never.self) { try members(limit) }
    }

    @Test(
        "names are read as the decoder reads them: escaped, or with a lower-case first letter, they are the member; both spellings are a duplicate"
    )
    func memberSpelling() throws {
        #expect(text(try members(#"{"Credentials":{"Secret\u004bey":"escaped"}}"#).values[0]) == "escaped")
        #expect(text(try members(#"{"credentials":{"secretKey":"lower"}}"#).values[0]) == "lower")
        for document in [
            #"{"Credentials":{"SecretKey":"A","secretKey":"B"}}"#,
            #"{"credentials":{"SecretKey":"A"},"Credentials":{"SecretKey":"B"}}"#,
        ] {
            #expect(
                throws: AuthCoreError(.malformedResponse, "Test: Credentials.SecretKey appears more than once"),
                "\(document)"
            ) {
                try members(document)
            }
        }
        // As declared (no case mapping), another spelling is another member.
        let exact = try SecretJSONMembers(
            parsing: SecureBytes(Array(#"{"Credentials":{"secretKey":"x"}}"#.utf8)),
            paths: [path],
            context: "Test",
            keys: .asDeclared
        )
        #expect(exact.values[0] == nil)
    }

    @Test("a UTF-8 byte order mark before the document is skipped and left out of the redacted copy")
    func byteOrderMark() throws {
        let document = [0xEF, 0xBB, 0xBF] + Array(#"{"Credentials":{"SecretKey":"s"}}"#.utf8)
        let taken = try SecretJSONMembers(parsing: SecureBytes(document), paths: [path], context: "Test")
        #expect(text(taken.values[0]) == "s")
        #expect(taken.redacted == Array(#"{"Credentials":{"SecretKey":""}}"#.utf8))
    }

    @Test("RedactedSecret refuses a value that was not taken out: a member the scanner missed is never read")
    func redactedSecretRefusesValues() throws {
        struct Answer: Decodable { let secretKey: RedactedSecret }
        #expect(throws: Never.self) {
            try ServiceJSON.decode(Answer.self, from: Array(#"{"SecretKey":""}"#.utf8), context: "Op")
        }
        #expect(
            throws: AuthCoreError(.malformedResponse, "Op: SecretKey was not taken out of the answer before decoding")
        ) {
            try ServiceJSON.decode(Answer.self, from: Array(#"{"SecretKey":"leaked"}"#.utf8), context: "Op")
        }
    }

    @Test("UTF-8 validation follows RFC 3629: overlong forms, surrogates and values past U+10FFFF are refused")
    func utf8() {
        func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { isValidUTF8($0) } }
        #expect(valid(Array("aé€😀".utf8)))
        for bad: [UInt8] in [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80],
            [0x80], [0xE2, 0x82], [0xFF],
        ] {
            #expect(!valid(bad), "\(bad)")
        }
    }

    @Test(
        "ServiceJSON reads a redacted answer: the secret comes only from the wiping buffer; a number in its place is named"
    )
    func serviceDecode() throws {
        struct Answer: Decodable {
            struct Inner: Decodable {
                let secretKey: RedactedSecret
                let accessKeyId: String
            }
            let credentials: Inner
        }
        let body = SecureBytes(Array(#"{"Credentials":{"AccessKeyId":"AKID","SecretKey":"shh"}}"#.utf8))
        let (answer, secrets) = try ServiceJSON.decode(
            Answer.self,
            from: body,
            secretMembers: [path],
            context: "GetCredentialsForIdentity"
        )
        #expect(answer.credentials.accessKeyId == "AKID")
        #expect(text(secrets[0]) == "shh")
        #expect {
            try ServiceJSON.decode(
                Answer.self,
                from: SecureBytes(Array(#"{"Credentials":{"AccessKeyId":"A","SecretKey":5}}"#.utf8)),
                secretMembers: [path],
                context: "Op"
            )
        } throws: { error in
            (error as? AuthCoreError)?.reason == "Op: Credentials.SecretKey is not a string"
        }
    }

    @Test(
        "a spliced request carries the secret escaped (quotes, backslashes, control characters, non-ASCII) and nothing else changes"
    )
    func splice() throws {
        var secrets = try SecretJSONValues()
        let password = "p\"a\\s/s\u{1}\u{1f}\té€😀"
        let body = try ServiceJSON.encode([
            "AuthParameters": [
                "USERNAME": "alice", "PASSWORD": secrets.placeholder(for: SecureBytes(Array(password.utf8))),
            ],
            "ClientId": ["x": "y"],
        ])
        let spliced = try secrets.splice(into: body)
        let object = try #require(parsed(spliced.withUnsafeBytes { Array($0) }))
        #expect((object["AuthParameters"] as? NSDictionary)?["PASSWORD"] as? String == password)
        #expect((object["AuthParameters"] as? NSDictionary)?["USERNAME"] as? String == "alice")
        #expect(!String(decoding: body, as: UTF8.self).contains("é€"))
    }

    @Test("a placeholder found twice or not at all, and a secret that is not UTF-8, are refused")
    func spliceRefusals() throws {
        var secrets = try SecretJSONValues()
        let placeholder = secrets.placeholder(for: SecureBytes(Array("pw".utf8)))
        #expect(throws: AuthCoreError.self) {
            try secrets.splice(into: Array(#"{"USERNAME":"\#(placeholder)","PASSWORD":"\#(placeholder)"}"#.utf8))
        }
        #expect(throws: AuthCoreError.self) {
            try secrets.splice(into: Array(#"{"PASSWORD":"x\#(placeholder)"}"#.utf8))
        }
        var invalid = try SecretJSONValues()
        let other = invalid.placeholder(for: SecureBytes([0xC0, 0x80]))
        #expect {
            try invalid.splice(into: Array(#"{"PASSWORD":"\#(other)"}"#.utf8))
        } throws: { error in
            (error as? AuthCoreError)?.code == .invalidParameter
        }
        #expect(try SecretJSONValues().isEmpty)
    }

    @Test("USER_PASSWORD_AUTH sends the password from a wiping body: the plain body is empty, the sent JSON carries it")
    func userPasswordAuth() async throws {
        let transport = ScriptedTransport([
            .jsonAnswer(400, ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
        ])
        let configuration = try CognitoUserPoolConfiguration(
            region: "us-east-1",
            userPoolId: "us-east-1_AbCdEf123",
            clientId: "client"
        )
        let signIn = CognitoSignIn(configuration: configuration, transport: transport, retryPolicy: .none)
        await #expect(throws: AuthCoreError.self) {
            _ = try await signIn.signIn(
                username: "alice",
                password: SecureBytes(Array("pa\"ss".utf8)),
                flow: .userPassword
            )
        }
        let request = try #require(transport.sent.first)
        guard case .secret(let secret) = request.body else {
            Issue.record("the password was not sent as a secret body: \(request.body)")
            return
        }
        let object = try #require(parsed(secret.withUnsafeBytes { Array($0) }))
        #expect((object["AuthParameters"] as? NSDictionary)?["PASSWORD"] as? String == "pa\"ss")
        #expect(object["AuthFlow"] as? String == "USER_PASSWORD_AUTH")
        #expect(request.body.count == secret.count)
    }

    @Test("GetCredentialsForIdentity asks for a wiping answer and takes the secret key from it")
    func identityCredentials() async throws {
        let answer: [String: Any] = [
            "IdentityId": "us-east-1:id",
            "Credentials": [
                "AccessKeyId": "ASIA1", "SecretKey": "secret\\/key", "SessionToken": "token",
                "Expiration": 1_900_000_000,
            ],
        ]
        var response = HTTPResponse.jsonAnswer(200, answer)
        response.body = .secret(SecureBytes(response.body.plainBytes))
        let transport = ScriptedTransport([response])
        let client = try CognitoIdentityClient(region: "us-east-1", sender: SignedRequestSender(transport: transport))
        let credentials = try await client.credentialsForIdentity(identityId: "us-east-1:id")
        #expect(credentials.secretAccessKey == SecureBytes(Array("secret\\/key".utf8)))
        #expect(transport.sent.first?.answerCarriesSecrets == true)
    }

    @Test(
        "the constant-time Base64 symbol equals the table's for every 6-bit value; a secret encodes as Base64.encode does"
    )
    func constantTimeBase64() throws {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for value in 0..<64 { #expect(Base64.constantTimeStandardSymbol(UInt32(value)) == table[value], "\(value)") }
        var bytes: [UInt8] = []
        for length in 0...48 {
            let secret = SecureBytes(bytes)
            let encoded = Base64.encodeSecret(secret).withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            #expect(encoded == Base64.encode(bytes), "length \(length)")
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 250))
        }
    }
}
