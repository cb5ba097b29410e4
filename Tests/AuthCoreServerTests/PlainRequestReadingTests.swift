import AuthCore
import AuthCoreHTTP
import AuthCoreServer
import Testing

/// The login requests read from the byte scan (`JSONStringObjectReadable`) against their oracle,
/// Foundation's `JSONDecoder` (`JSONAnswer.decode` with `plainObjectsScanned: false`): for every
/// body, plain or not, the same value or the same refusal.
@Suite("Plain login requests read from the scan: the same value or refusal as JSONDecoder's")
struct PlainRequestReadingTests {
    /// Strings as JSON writes them, with the string each stands for: escapes of every kind, raw
    /// UTF-8, a surrogate pair, NUL.
    static let texts: [(json: String, value: String)] = [
        (#""alice""#, "alice"), (#""""#, ""), (#""a\"b\\c\/d""#, "a\"b\\c/d"), (#""\b\f\n\r\t""#, "\u{8}\u{c}\n\r\t"),
        (#""\u0041\u00e9\u65E5""#, "Aé日"), (#""\ud83d\ude00""#, "😀"), (#""\u0000""#, "\u{0}"), ("\"é日😀\"", "é日😀"),
        (#""0123456789abcdef""#, "0123456789abcdef"), ("\"e\u{301}\"", "e\u{301}"), (#""\u212A""#, "\u{212A}"),
        ("\"\(String(repeating: "ab", count: 300))\"", String(repeating: "ab", count: 300)),
    ]

    /// Members that break plainness (or validity) in ways the scan and the decoder must agree on.
    static let oddValues = [
        "null", "1", "-0.5e3", "true", "[]", "{}", #"["x"]"#, #"{"a":"b"}"#, "1e999", #""\ud800""#, #""\x""#,
        "\"a\u{1}b\"",
    ]

    /// What `decode` gives: the value's fields, or the refusal's message.
    static func outcome<T: Decodable>(
        _ type: T.Type,
        _ body: [UInt8],
        scanned: Bool,
        fields: (T) -> [String?]
    ) -> String {
        // The fields as bytes: String equality would take "é" and "e\u{301}" for one another.
        do {
            return
                "value \(fields(try JSONAnswer.decode(type, from: body, plainObjectsScanned: scanned)).map { $0.map { Array($0.utf8) } })"
        } catch {
            return "refused \(error.status) \(error.code) \(error.message)"
        }
    }

    static func bodies(members: [String], optional: [String]) -> [[UInt8]] {
        var bodies: [[UInt8]] = []
        for (index, text) in texts.enumerated() {
            let other = texts[(index + 3) % texts.count].json
            let all = members.map { "\"\($0)\":\(text.json)" } + optional.map { "\"\($0)\":\(other)" }
            bodies.append(Array("{\(all.joined(separator: ","))}".utf8))
            bodies.append(Array(" \u{FEFF}{\(all.reversed().joined(separator: " , "))}\n".utf8))
            bodies.append([0xEF, 0xBB, 0xBF] + Array("\t{ \(all.joined(separator: ",\n")) }".utf8))
            bodies.append(Array("{\(all.dropFirst().joined(separator: ","))}".utf8))  // a member missing
            bodies.append(Array("{\(all.joined(separator: ",")),\"extra\":\(other)}".utf8))  // an unknown member
            bodies.append(Array("[{\(all.joined(separator: ","))}]".utf8))  // not an object
            bodies.append(Array("{\(all.joined(separator: ","))}x".utf8))  // trailing bytes
            bodies.append(Array("{\(all.joined(separator: ",")),\"\(members[0])\":\(other)}".utf8))  // a member twice
            for odd in oddValues {
                for name in members + optional + ["extra"] {
                    let replaced = (members + optional).map {
                        $0 == name ? "\"\($0)\":\(odd)" : "\"\($0)\":\(text.json)"
                    }
                    bodies.append(
                        Array(
                            "{\((replaced + (name == "extra" ? ["\"extra\":\(odd)"] : [])).joined(separator: ","))}"
                                .utf8
                        )
                    )
                }
            }
        }
        // Bytes that are not UTF-8, inside a value and inside an unknown member.
        let all = (members + optional).map { "\"\($0)\":\"v\"" }.joined(separator: ",")
        bodies.append(Array("{\(all),\"extra\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8))
        bodies.append(Array("{\"\(members[0])\":\"".utf8) + [0xFF] + Array("\"}".utf8))
        bodies += [[], Array("{}".utf8), Array("null".utf8), Array("\"x\"".utf8), Array("{".utf8)]
        return bodies
    }

    @Test(
        "BeginRequest: plain, reordered, with a byte order mark, a member missing, odd values, not UTF-8, not an object"
    )
    func beginRequest() {
        let bodies = Self.bodies(members: ["username", "A"], optional: ["deviceToken"])
        var scanned = 0
        for body in bodies {
            let fields = { (request: SRPLoginWire.BeginRequest) in
                [request.username, request.clientPublicValue, request.deviceToken]
            }
            let fast = Self.outcome(SRPLoginWire.BeginRequest.self, body, scanned: true, fields: fields)
            #expect(
                fast == Self.outcome(SRPLoginWire.BeginRequest.self, body, scanned: false, fields: fields),
                "\(body)"
            )
            let members = try? JSONMemberNames.rootMembers(of: body)
            if let members,
                JSONStringObject(document: body, members: members).flatMap(
                    SRPLoginWire.BeginRequest.init(stringMembers:)
                ) != nil
            {
                scanned += 1
            }
        }
        // Plain bodies were read from the scan: per text, the compact one, the one after a byte order mark,
        // and the one with an unknown member (a U+FEFF after a space is not a byte order mark: refused).
        #expect(scanned == Self.texts.count * 3, "\(scanned) of \(bodies.count) read from the scan")
    }

    @Test("FinishRequest: the same bodies, its two members")
    func finishRequest() {
        let bodies = Self.bodies(members: ["loginId", "M1"], optional: [])
        var scanned = 0
        for body in bodies {
            let fields = { (request: SRPLoginWire.FinishRequest) in [request.loginId, request.clientProof] }
            let fast = Self.outcome(SRPLoginWire.FinishRequest.self, body, scanned: true, fields: fields)
            #expect(
                fast == Self.outcome(SRPLoginWire.FinishRequest.self, body, scanned: false, fields: fields),
                "\(body)"
            )
            let members = try? JSONMemberNames.rootMembers(of: body)
            if let members,
                JSONStringObject(document: body, members: members).flatMap(
                    SRPLoginWire.FinishRequest.init(stringMembers:)
                ) != nil
            {
                scanned += 1
            }
        }
        #expect(scanned == Self.texts.count * 3, "\(scanned) of \(bodies.count) read from the scan")
        // One spelled out: the escapes resolved.
        let request = try? JSONAnswer.decode(
            SRPLoginWire.FinishRequest.self,
            from: Array(#"{"M1":"\u0061b","loginId":"x\/y"}"#.utf8)
        )
        #expect(request?.loginId == "x/y" && request?.clientProof == "ab")
    }
}
