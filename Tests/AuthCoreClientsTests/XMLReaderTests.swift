import AuthCore
import AuthCoreClients
import Testing

@Suite("XML answers: a parser, not substring search")
struct XMLReaderTests {
    static func parse(_ text: String) throws(AuthCoreError) -> XMLReader {
        try XMLReader(parsing: Array(text.utf8), context: "test")
    }

    @Test("elements, entities, CDATA and namespaces as STS writes them; the first match in document order")
    func wellFormed() throws {
        let document = try Self.parse(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>
            <AssumedRoleUser><Arn>arn:aws:sts::1:assumed-role/r/s</Arn></AssumedRoleUser>
            <Credentials><AccessKeyId>ASIA</AccessKeyId><SecretAccessKey>a&amp;b&lt;c&#65;</SecretAccessKey>
            <SessionToken><![CDATA[tok<en>]]></SessionToken></Credentials></AssumeRoleResult></AssumeRoleResponse>
            """
        )
        #expect(document.root.name == "AssumeRoleResponse")
        let credentials = try #require(document.first(named: "Credentials"))
        #expect(credentials.child("AccessKeyId")?.text == "ASIA")
        #expect(credentials.child("SecretAccessKey")?.text == "a&b<cA")
        #expect(credentials.child("SessionToken")?.text == "tok<en>")
        #expect(document.first(named: "Arn")?.text == "arn:aws:sts::1:assumed-role/r/s")
        #expect(document.first(named: "Missing") == nil)
        // A name inside character data is not an element (substring search would find it).
        let tricky = try Self.parse("<Error><Message>&lt;Code&gt;fake&lt;/Code&gt;</Message><Code>Real</Code></Error>")
        #expect(tricky.first(named: "Code")?.text == "Real")
    }

    @Test(
        "an answer that is not UTF-8 is refused before the parser sees it (Foundation's XMLParser traps on such an element name: found by fuzzing)"
    )
    func notUTF8() {
        let name =
            Array("<AssumeRoleResponse><Credentials".utf8) + [0xFF, 0xFE] + Array("/></AssumeRoleResponse>".utf8)
        #expect(throws: AuthCoreError(.malformedResponse, "test: the XML answer is not UTF-8")) {
            try XMLReader(parsing: name, context: "test")
        }
        let text = Array("<Error><Message>".utf8) + [0xC0, 0x80] + Array("</Message></Error>".utf8)
        #expect(throws: AuthCoreError(.malformedResponse, "test: the XML answer is not UTF-8")) {
            try XMLReader(parsing: text, context: "test")
        }
    }

    @Test("a DTD (entity expansion, external entities), too deep or too many elements, and broken XML are typed errors")
    func hostile() {
        let laughs =
            "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;\">]><Error><Code>&lol2;</Code></Error>"
        let external = "<!doctype x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>"
        let deep = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        let many = "<r>" + String(repeating: "<e/>", count: 10_001) + "</r>"
        for text in [laughs, external, deep, many, "<a><b></a>", "not xml", "", "<a>unclosed"] {
            #expect(throws: AuthCoreError(.malformedResponse, ""), "\(text.prefix(30))") { try Self.parse(text) }
        }
        #expect(throws: AuthCoreError(.malformedResponse, "")) {
            try Self.parse(String(repeating: "<a>", count: 65) + String(repeating: "</a>", count: 65))
        }
        #expect(throws: Never.self) {
            try Self.parse(String(repeating: "<a>", count: 64) + String(repeating: "</a>", count: 64))
        }
    }
}
