import AuthCore

#if canImport(Glibc)
import Glibc
#endif

// authcore-ctcheck: the constant-flow gate's driver (`make ctgrind`).
//
//   authcore-ctcheck ctgrind [NAME...]  every flow (or the flows and controls named), then the
//                                controls, under valgrind memcheck: prints the reports each caused;
//                                exit 0 only when every flow caused 0 and every control at least 1.
//   authcore-ctcheck ctgrind-openssl   what memcheck reports inside OpenSSL's P-256 key import and
//                                ECDSA with the SigV4a scalar secret (`make ctgrind-openssl`; no gate).
//   authcore-ctcheck zeroize PASSWORD-FD   SRP, Cognito and device flows with the password read from
//                                     a descriptor (`make zeroize-check`, see Zeroize.swift).
//   authcore-ctcheck dudect N [OP...]  timing: fixed-vs-random classes, Welch's t (`make dudect`,
//                                     a smoke in `make test`; see Dudect.swift).
//   authcore-ctcheck count OP CLASS   one secret operation for one secret class between callgrind's
//                                     start/stop marks (`make ct-count`, see Counting.swift).

func runChecked(only names: [String]) -> Int32 {
    guard ConstantFlow.isChecking else {
        print("ctgrind: not running under valgrind memcheck built with -DAUTHCORE_CONSTANT_FLOW_CHECK")
        return 2
    }
    var failed = false
    let unknown = names.filter { name in !(flows + controls).contains { $0.name == name } }
    guard unknown.isEmpty else {
        print("ctgrind: no flow or control named \(unknown.joined(separator: ", "))")
        return 2
    }
    func selected(_ flow: Flow) -> Bool { names.isEmpty || names.contains(flow.name) }
    for flow in flows where selected(flow) {
        let before = ConstantFlow.reportedErrors
        do { try flow.run() } catch {
            print("ctgrind \(flow.name): failed: \(error)")
            failed = true
            continue
        }
        let reports = ConstantFlow.reportedErrors - before
        print("ctgrind \(flow.name): \(reports) reports")
        if reports != 0 { failed = true }
    }
    for control in controls where selected(control) {
        let before = ConstantFlow.reportedErrors
        try? control.run()
        let reports = ConstantFlow.reportedErrors - before
        print("ctgrind \(control.name): \(reports) reports (a control: must be > 0)")
        if reports == 0 { failed = true }
    }
    print(failed ? "ctgrind: FAILED" : "ctgrind: every flow constant-flow; every control caught")
    return failed ? 1 : 0
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "ctgrind": exit(runChecked(only: Array(arguments.dropFirst())))
case "ctgrind-openssl": exit(runOpenSSLObservation())
case "count": exit(runCount(Array(arguments.dropFirst())))
case "zeroize": exit(runZeroizeFlows(Array(arguments.dropFirst())))
case "dudect": exit(runDudect(Array(arguments.dropFirst())))
default:
    print(
        "usage: authcore-ctcheck ctgrind [NAME...] | ctgrind-openssl | count OP CLASS | zeroize FD | dudect N [OP...]"
    )
    exit(2)
}
