import AuthCoreTestSupport
import AuthCoreVectors
import Foundation
import Testing

@Suite("Vector runner (vectors.md)")
struct VectorRunnerTests {
    func check(_ json: String) -> (VectorRunner.Summary, [String]) {
        var lines: [String] = []
        var summary = VectorRunner.Summary()
        VectorRunner().check(name: "t.json", data: Array(json.utf8), into: &summary) { lines.append($0) }
        return (summary, lines)
    }

    let goodHash =
        #"{"kind":"hash","source":"FIPS 180-2","cases":[{"name":"abc","alg":"sha256","msg_hex":"616263","expect":{"digest_hex":"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"}}]}"#

    @Test("a passing file prints PASS with its case count")
    func passing() {
        let (summary, lines) = check(goodHash)
        #expect(summary == VectorRunner.Summary(passed: 1, failed: 0))
        #expect(lines == ["PASS t.json (1 cases)"])
    }

    @Test("a wrong expected value prints the FAIL line with field, expected and got")
    func mismatch() {
        let json = goodHash.replacingOccurrences(of: "BA7816", with: "BA7817")
        let (summary, lines) = check(json)
        #expect(summary.failed == 1 && summary.passed == 0)
        #expect(
            lines == [
                "FAIL t.json: case abc: expect.digest_hex: expected BA7817BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD got ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            ]
        )
    }

    @Test(
        "structural problems are failures that name the field",
        arguments: [
            (#"not json"#, "FAIL t.json: not valid JSON"),
            (#"[1,2]"#, "FAIL t.json: top level is not a JSON object"),
            (#"{"cases":[]}"#, "FAIL t.json: kind: missing required field"),
            (#"{"kind":"teleport","cases":[{}]}"#, "FAIL t.json: kind: unsupported kind 'teleport'"),
            (#"{"kind":"hash"}"#, "FAIL t.json: cases: missing required field (an array)"),
            (#"{"kind":"hash","cases":[]}"#, "FAIL t.json: cases: no cases"),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"sha256","msg_hex":"00"}]}"#,
                "FAIL t.json: case n: expect: missing required field"
            ),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"sha256","msg_hex":"00","expect":{}}]}"#,
                "FAIL t.json: case n: expect: no expected values (at least one is required)"
            ),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"sha256","expect":{"digest_hex":"00"}}]}"#,
                "FAIL t.json: case n: msg_hex: missing required field"
            ),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"sha256","msg_hex":"0g","expect":{"digest_hex":"00"}}]}"#,
                "FAIL t.json: case n: msg_hex: msg_hex: invalid hex digit at offset 1"
            ),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"sha256","msg_hex":"000","expect":{"digest_hex":"00"}}]}"#,
                "FAIL t.json: case n: msg_hex: msg_hex: odd number of hex digits (3)"
            ),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"md5","msg_hex":"00","expect":{"digest_hex":"00"}}]}"#,
                "FAIL t.json: case n: alg: unknown hash algorithm 'md5' (expected sha1, sha224, sha256, sha384 or sha512)"
            ),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"sha256","msg_hex":"00","expect":{"digest":"00"}}]}"#,
                "FAIL t.json: case n: expect.digest: unknown field for this kind"
            ),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"sha256","msg_hex":"00","repeat":0,"expect":{"digest_hex":"00"}}]}"#,
                "FAIL t.json: case n: repeat: must be at least 1"
            ),
            (
                #"{"kind":"hash","cases":[{"name":"n","alg":"sha256","msg_hex":"00","repeat":"x","expect":{"digest_hex":"00"}}]}"#,
                "FAIL t.json: case n: repeat: expected an integer, found string"
            ),
            (#"{"kind":"hash","cases":[7]}"#, "FAIL t.json: case #0: case: not a JSON object"),
            (
                #"{"kind":"hmac","cases":[{"name":"n","alg":"sha256","key_hex":"","msg_hex":"","expect":{"mac_hex":"00112233445566778899001122334455667788990011223344556677889900112233"}}]}"#,
                "FAIL t.json: case n: expect.mac_hex: length 34 bytes is not a valid (truncated) MAC length"
            ),
            (
                #"{"kind":"hkdf","cases":[{"name":"n","alg":"sha256","ikm_hex":"00","salt_hex":"","info_hex":"","length":0,"expect":{"okm_hex":"00"}}]}"#,
                "FAIL t.json: case n: length: HKDF output length 0 is outside 1...8160 (RFC 5869 §2.3)"
            ),
            (
                #"{"kind":"hkdf","cases":[{"name":"n","alg":"sha256","ikm_hex":"00","salt_hex":"","info_hex":"","length":8161,"expect":{"okm_hex":"00"}}]}"#,
                "FAIL t.json: case n: length: HKDF output length 8161 is outside 1...8160 (RFC 5869 §2.3)"
            ),
        ]
    )
    func structuralFailures(json: String, line: String) {
        let (summary, lines) = check(json)
        #expect(summary.failed == 1)
        #expect(summary.passed == 0)
        #expect(lines == [line])
    }

    /// Two awscrt cases (vectors/sigv4a-awscrt.json) with only awscrt's own outputs as expectations:
    /// its signature must verify under the key and string to sign the runner derives itself.
    let awscrtHeader =
        #"{"kind":"sigv4a","cases":[{"name":"h","request":{"method":"PUT","uri":"/photos/a-b_c/50%25?b=1&a=a%2Bb","headers":[["Host","example.amazonaws.com"],["Content-Type","value1"]],"body":""},"credentials":{"access_key_id":"ASIAQEXAMPLE3TOKENID","secret_access_key":"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY","session_token":"IQoJb3JpZ2luX2VjEXAMPLE//////////wEaCXVzLWVhc3QtMSJHMEUCIQDEXAMPLE+token/with+plus/slash=="},"region_set":"us-gov-west-1","service":"sts","timestamp":"20260314T150926Z","expect":{"signature":"3046022100a12ad28aa2ecd24421b5a707549f8fc6cade832d0d49389f5790a7b7c488ddc0022100c6bbb80a0a6a24baa989263ee09d44001f69e919829b98051a18a97969b96d67","authorization":"AWS4-ECDSA-P256-SHA256 Credential=ASIAQEXAMPLE3TOKENID/20260314/sts/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-region-set;x-amz-security-token, Signature=3046022100a12ad28aa2ecd24421b5a707549f8fc6cade832d0d49389f5790a7b7c488ddc0022100c6bbb80a0a6a24baa989263ee09d44001f69e919829b98051a18a97969b96d67"}}]}"#
    let awscrtQuery =
        #"{"kind":"sigv4a","cases":[{"name":"q","request":{"method":"PUT","uri":"/%E6%9D%B1%E4%BA%AC?prefix=/slash","headers":[["Host","example.amazonaws.com"],["Cache-Control","*/*"]],"body":""},"credentials":{"access_key_id":"AKIDEXAMPLE","secret_access_key":"wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"},"region_set":"eu-west-1,ap-southeast-2,sa-east-1","service":"execute-api","timestamp":"20260314T150926Z","options":{"mode":"query","expires":900},"expect":{"signature":"3045022027425bd0537a6754fec4afb7ae8d76e84b24d443608e4a3238a98d48a9ec21db022100a7069abdcde1a0de83fe43636e637cd98eeaf5c890194e8d02d1fc25e670c5b1","signed_uri":"/%E6%9D%B1%E4%BA%AC?prefix=/slash&X-Amz-Algorithm=AWS4-ECDSA-P256-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260314%2Fexecute-api%2Faws4_request&X-Amz-Date=20260314T150926Z&X-Amz-SignedHeaders=cache-control%3Bhost&X-Amz-Expires=900&X-Amz-Region-Set=eu-west-1%2Cap-southeast-2%2Csa-east-1&X-Amz-Signature=3045022027425bd0537a6754fec4afb7ae8d76e84b24d443608e4a3238a98d48a9ec21db022100a7069abdcde1a0de83fe43636e637cd98eeaf5c890194e8d02d1fc25e670c5b1"}}]}"#

    @Test(
        "sigv4a: another signer's signature verifies under the runner's own key and string to sign; a changed one, request or header list fails"
    )
    func sigV4AFromAnotherSigner() {
        #expect(check(awscrtHeader).0 == VectorRunner.Summary(passed: 1, failed: 0))
        #expect(
            check(awscrtQuery).0 == VectorRunner.Summary(passed: 1, failed: 0),
            "prefix=/slash is prefix=%2Fslash canonically"
        )
        let failures: [(String, String)] = [
            (
                awscrtHeader.replacingOccurrences(of: "69b96d67\",\"authorization", with: "69b96d68\",\"authorization"),
                "case h: expect.signature: expected a signature that verifies"
            ),
            (
                awscrtHeader.replacingOccurrences(of: "\"value1\"", with: "\"value2\""),
                "case h: expect.signature: expected a signature that verifies"
            ),
            (
                awscrtHeader.replacingOccurrences(of: "us-gov-west-1", with: "us-gov-east-1"),
                "case h: expect.signature: expected a signature that verifies"
            ),
            (
                awscrtHeader.replacingOccurrences(of: "SignedHeaders=content-type;host", with: "SignedHeaders=host"),
                "case h: expect.authorization"
            ),
            (
                awscrtQuery.replacingOccurrences(of: "prefix=/slash&", with: "prefix=/slosh&"),
                "case q: expect.signed_uri"
            ),
            (
                awscrtQuery.replacingOccurrences(of: "X-Amz-Expires=900", with: "X-Amz-Expires=901"),
                "case q: expect.signed_uri"
            ),
            (
                awscrtQuery.replacingOccurrences(
                    of: "X-Amz-Region-Set=eu-west-1%2C",
                    with: "X-Amz-Region-Set=eu-west-1,"
                ), "case q: expect.signed_uri"
            ),
            (
                awscrtQuery.replacingOccurrences(of: "&X-Amz-Signature=", with: "&X-Amz-Signaturf="),
                "case q: expect.signed_uri"
            ),
            (
                awscrtHeader.replacingOccurrences(of: ", Signature=", with: ", Signature=Signature="),
                "case h: expect.authorization"
            ),
        ]
        for (json, prefix) in failures {
            let (summary, lines) = check(json)
            #expect(summary.failed == 1, "\(prefix)")
            #expect(lines.first?.hasPrefix("FAIL t.json: \(prefix)") == true, "\(lines)")
        }
    }

    @Test("the summary line counts cases across files; a missing path is a failure")
    func summaryLine() throws {
        let good = try temporaryFile(goodHash, name: "good.json")
        var lines: [String] = []
        let summary = VectorRunner().run(paths: [good, good, "/nonexistent/vectors"]) { lines.append($0) }
        #expect(summary == VectorRunner.Summary(passed: 2, failed: 1))
        #expect(lines.last == "2 passed, 1 failed")
        #expect(lines.contains("FAIL /nonexistent/vectors: no such file or directory"))
    }

    @Test("truncated HMAC (RFC 4231 case 5) compares the leading bytes")
    func truncatedMAC() {
        let json =
            #"{"kind":"hmac","cases":[{"name":"c5","alg":"sha256","key_hex":"0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c","msg_hex":"546573742057697468205472756e636174696f6e","expect":{"mac_hex":"a3b6167473100ee06e0c796c2955552b"}}]}"#
        #expect(check(json).0 == VectorRunner.Summary(passed: 1, failed: 0))
    }

    @Test("the million-a message is expressed with repeat")
    func millionA() {
        let json =
            #"{"kind":"hash","cases":[{"name":"m","alg":"sha1","msg_hex":"61","repeat":1000000,"expect":{"digest_hex":"34aa973cd4c4daa4f61eeb2bdbad27316534016f"}}]}"#
        #expect(check(json).0 == VectorRunner.Summary(passed: 1, failed: 0))
    }

    @Test("every vector file in the repository passes")
    func repositoryVectors() async {
        let path = vectorsDirectory.path
        let (passed, failed, failures) = await onOwnThread {
            var lines: [String] = []
            let summary = VectorRunner().run(paths: [path]) { lines.append($0) }
            return (summary.passed, summary.failed, Array(lines.filter { $0.hasPrefix("FAIL") }.prefix(10)))
        }
        #expect(failed == 0, "\(failures)")
        #expect(passed > 1000)
    }
}
