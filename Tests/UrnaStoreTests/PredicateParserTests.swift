import Foundation
import Testing

@testable import UrnaStore

/// `left op right` as the parser builds it (positions do not take part in equality).
private func cmp(
    _ left: PredicateOperand, _ op: PredicateOperator, _ right: PredicateOperand, _ options: PredicateOptions = [],
    _ quantifier: PredicateQuantifier = .implicit
) -> QueryPredicate {
    .comparison(PredicateComparison(left, op, right, options: options, quantifier: quantifier))
}

private func key(_ path: String) -> PredicateOperand { .keyPath(PredicateKeyPath(stringLiteral: path)) }

/// The error message parsing `text` throws, or nil when it parses.
private func parseError(_ text: String, _ arguments: [QueryArgument] = []) -> String? {
    do {
        _ = try QueryPredicate.parse(text, arguments: arguments)
        return nil
    } catch {
        return "\(error)"
    }
}

@Suite struct PredicateParserTests {
    @Test(arguments: [
        ("=", PredicateOperator.equal), ("==", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .lessThan),
        ("<=", .lessThanOrEqual), ("=<", .lessThanOrEqual), (">", .greaterThan), (">=", .greaterThanOrEqual),
        ("=>", .greaterThanOrEqual), ("BEGINSWITH", .beginsWith), ("beginsWith", .beginsWith), ("ENDSWITH", .endsWith),
        ("CONTAINS", .contains), ("contains", .contains), ("LIKE", .like),
    ])
    func operators(_ symbol: String, _ op: PredicateOperator) throws {
        #expect(try QueryPredicate.parse("name \(symbol) 'x'") == cmp(key("name"), op, .value("x")))
        if symbol.first?.isLetter == false {
            #expect(try QueryPredicate.parse("name\(symbol)'x'") == cmp(key("name"), op, .value("x")))
        }
    }

    @Test func inAndBetween() throws {
        #expect(try QueryPredicate.parse("age IN {1, 2, 3}") == cmp(key("age"), .in, .values([1, 2, 3])))
        #expect(try QueryPredicate.parse("age in {}") == cmp(key("age"), .in, .values([])))
        #expect(try QueryPredicate.parse("age BETWEEN {18, 65}") == cmp(key("age"), .between, .values([18, 65])))
        #expect(try QueryPredicate.parse("age IN %@", arguments: [[1, 2]]) == cmp(key("age"), .in, .values([1, 2])))
        #expect(
            try QueryPredicate.parse("age BETWEEN %@", arguments: [.values([1, 2])])
                == cmp(key("age"), .between, .values([1, 2])))
        #expect(try QueryPredicate.parse("%@ IN goods", arguments: [4]) == cmp(.value(4), .in, key("goods")))
    }

    @Test(
        arguments: [
            ("[c]", PredicateOptions.caseInsensitive), ("[d]", .diacriticInsensitive),
            ("[cd]", [.caseInsensitive, .diacriticInsensitive]), ("[dc]", [.caseInsensitive, .diacriticInsensitive]),
        ] as [(String, PredicateOptions)])
    func modifiers(_ text: String, _ options: PredicateOptions) throws {
        #expect(try QueryPredicate.parse("name ==\(text) 'x'") == cmp(key("name"), .equal, .value("x"), options))
        #expect(
            try QueryPredicate.parse("name BEGINSWITH\(text) 'x'")
                == cmp(key("name"), .beginsWith, .value("x"), options))
    }

    @Test func literals() throws {
        func value(_ text: String) throws -> PredicateOperand? {
            guard case .comparison(let c) = try QueryPredicate.parse("x == " + text) else { return nil }
            return c.right
        }
        #expect(try value("'single'") == .value("single"))
        #expect(try value("\"double\"") == .value("double"))
        #expect(try value(#"'it\'s'"#) == .value("it's"))
        #expect(try value(#""say \"hi\"""#) == .value(#"say "hi""#))
        #expect(try value(#"'a\\b'"#) == .value(#"a\b"#))
        #expect(try value(#"'tab\there'"#) == .value("tab\there"))
        #expect(try value(#"'\u00e9'"#) == .value("é"))
        #expect(try value(#"'a\*b'"#) == .value(#"a\*b"#))  // kept for LIKE
        #expect(try value("'José'") == .value("José"))
        #expect(try value("''") == .value(""))
        #expect(try value("42") == .value(42))
        #expect(try value("-42") == .value(-42))
        #expect(try value("- 7") == .value(-7))
        #expect(try value("0x1F") == .value(31))
        #expect(try value("1000.50") == .value(.decimal(Decimal(string: "1000.5")!)))
        #expect(try value("-0.25") == .value(.decimal(Decimal(string: "-0.25")!)))
        #expect(try value("1e3") == .value(.decimal(1000)))
        #expect(try value("99999999999999999999") == .value(.decimal(Decimal(string: "99999999999999999999")!)))
        #expect(try value("-9223372036854775808") == .value(.int(Int64.min)))
        for t in ["true", "TRUE", "YES", "yes"] { #expect(try value(t) == .value(true)) }
        for f in ["false", "FALSE", "NO", "no"] { #expect(try value(f) == .value(false)) }
        for n in ["nil", "NIL", "null", "NULL"] { #expect(try value(n) == .value(.null)) }
    }

    @Test func logicAndPrecedence() throws {
        let a = cmp(key("a"), .equal, .value(1))
        let b = cmp(key("b"), .equal, .value(2))
        let c = cmp(key("c"), .equal, .value(3))
        #expect(try QueryPredicate.parse("a == 1 AND b == 2") == .and([a, b]))
        #expect(try QueryPredicate.parse("a == 1 && b == 2 && c == 3") == .and([a, b, c]))
        #expect(try QueryPredicate.parse("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try QueryPredicate.parse("a == 1 || b == 2 and c == 3") == .or([a, .and([b, c])]))
        #expect(try QueryPredicate.parse("(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(try QueryPredicate.parse("NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try QueryPredicate.parse("!a == 1") == .not(a))
        #expect(try QueryPredicate.parse("!!a == 1") == .not(.not(a)))
        #expect(try QueryPredicate.parse("NOT (a == 1 OR b == 2)") == .not(.or([a, b])))
        #expect(try QueryPredicate.parse("((a == 1))") == a)
        #expect(try QueryPredicate.parse("TRUEPREDICATE") == .truePredicate)
        #expect(try QueryPredicate.parse("falsepredicate OR a == 1") == .or([.falsePredicate, a]))
    }

    @Test func quantifiersAndKeyPaths() throws {
        #expect(
            try QueryPredicate.parse("ANY goods.value > 1000")
                == cmp(key("goods.value"), .greaterThan, .value(1000), [], .any))
        #expect(
            try QueryPredicate.parse("SOME goods.value > 1000")
                == cmp(key("goods.value"), .greaterThan, .value(1000), [], .any))
        #expect(
            try QueryPredicate.parse("all goods.value > 1000")
                == cmp(key("goods.value"), .greaterThan, .value(1000), [], .all))
        #expect(
            try QueryPredicate.parse("NONE goods.value > 1000")
                == cmp(key("goods.value"), .greaterThan, .value(1000), [], .none))
        #expect(
            try QueryPredicate.parse("goods.@count > 2")
                == cmp(.keyPath(PredicateKeyPath(["goods", "@count"])), .greaterThan, .value(2)))
        #expect(
            try QueryPredicate.parse("party.coalition.name == 'x'")
                == cmp(.keyPath(PredicateKeyPath(["party", "coalition", "name"])), .equal, .value("x")))
        #expect(try QueryPredicate.parse("#in == 1") == cmp(key("in"), .equal, .value(1)))
        #expect(try QueryPredicate.parse("list.all == 1") == cmp(key("list.all"), .equal, .value(1)))
        #expect(try QueryPredicate.parse("a == b") == cmp(key("a"), .equal, key("b")))
    }

    @Test func argumentsFillPlaceholdersInOrder() throws {
        #expect(
            try QueryPredicate.parse("name == %@ AND age > %d", arguments: ["Ana", 18])
                == .and([
                    cmp(key("name"), .equal, .value("Ana")), cmp(key("age"), .greaterThan, .value(18)),
                ]))
        #expect(
            try QueryPredicate.parse("score > %f", arguments: [2])
                == cmp(key("score"), .greaterThan, .value(.double(2))))
        #expect(try QueryPredicate.parse("age > %i", arguments: [2]) == cmp(key("age"), .greaterThan, .value(2)))
        #expect(try QueryPredicate.parse("age > %ld", arguments: [2]) == cmp(key("age"), .greaterThan, .value(2)))
        #expect(
            try QueryPredicate.parse("%K == %@", arguments: [.keyPath("party.acronym"), "PT"])
                == cmp(key("party.acronym"), .equal, .value("PT")))
        #expect(
            try QueryPredicate.parse("%K.@count == 0", arguments: ["goods"])
                == cmp(key("goods.@count"), .equal, .value(0)))
        #expect(
            try QueryPredicate.parse("ANY %K > 1", arguments: ["goods.value"])
                == cmp(key("goods.value"), .greaterThan, .value(1), [], .any))
        #expect(try QueryPredicate.parse("x == %@", arguments: [nil]) == cmp(key("x"), .equal, .value(.null)))
        let when = ISODate.date(year: 2016, month: 10, day: 2)
        #expect(
            try QueryPredicate.parse("d < %@", arguments: [.date(when)])
                == cmp(key("d"), .lessThan, .value(.date(when))))
        // A value never changes how the text parses.
        #expect(
            try QueryPredicate.parse("name == %@", arguments: ["x' OR 1=1 --"])
                == cmp(key("name"), .equal, .value("x' OR 1=1 --")))
        #expect(try QueryPredicate.parse("name == %@", arguments: ["%@"]) == cmp(key("name"), .equal, .value("%@")))
    }

    @Test(
        arguments: [
            ("", [], "at 1: expected a predicate, found end of input"),
            ("   ", [], "at 4: expected a predicate, found end of input"),
            ("name ==", [], "at 8: expected a value after '==', found end of input"),
            ("candidate.name == ", [], "at 19: expected a value after '==', found end of input"),
            ("name ==[c]", [], "at 11: expected a value after '[c]', found end of input"),
            ("name == AND", [], "at 9: expected a value after '==', found 'AND'"),
            ("name == 'abc", [], "at 9: unterminated string: add a closing '"),
            ("name == \"abc", [], "at 9: unterminated string: add a closing \""),
            ("name == 'a\\", [], "at 9: unterminated string: add a closing '"),
            ("name == 'a\\qb'", [], "at 11: unknown escape '\\q' in a string (write \\\\ for a backslash)"),
            ("name == '\\u12'", [], "at 10: expected 4 hex digits after '\\u'"),
            ("name === 'x'", [], "at 6: unknown operator '===': use ==, !=, <, <=, >, >=, &&, || or !"),
            ("name =! 'x'", [], "at 6: unknown operator '=!': use ==, !=, <, <=, >, >=, &&, || or !"),
            (
                "name EQUALS 'x'", [],
                "at 6: expected an operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN, BETWEEN) after 'name', found 'EQUALS'"
            ),
            (
                "name", [],
                "at 5: expected an operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN, BETWEEN) after 'name', found end of input"
            ),
            ("name MATCHES 'x.*'", [], "at 6: MATCHES (regular expressions) is not supported; use LIKE with * and ?"),
            ("name ==[x] 'a'", [], "at 8: unknown modifier '[x]': use [c], [d] or [cd]"),
            ("name ==[c 'a'", [], "at 8: expected a modifier like [c], [d] or [cd]"),
            ("(name == 'x'", [], "at 13: expected ')' to close the '(' at 1, found end of input"),
            ("name == 'x')", [], "at 12: found ')' without a matching '('"),
            (
                "name == 'x' 'y'", [],
                "at 13: expected AND, OR or the end of the predicate after the string 'x', found the string 'y'"
            ),
            ("name == 'x' AND", [], "at 16: expected a comparison after 'AND', found end of input"),
            ("name == 'x' OR NOT", [], "at 19: expected a comparison after 'NOT', found end of input"),
            ("age BETWEEN {1}", [], "at 13: BETWEEN needs two values, like {18, 65}; found 1"),
            ("age BETWEEN 5", [], "at 13: BETWEEN needs a list of values, like {1, 2} or a .values([...]) argument"),
            ("age IN 5", [], "at 8: IN needs a list of values, like {1, 2} or a .values([...]) argument"),
            ("age == {1, 2}", [], "at 8: a list of values can only follow IN or BETWEEN, not =="),
            ("{1} IN age", [], "at 1: a list of values can only be the right side of IN or BETWEEN"),
            ("age IN {1, 2", [], "at 13: expected ',' or '}' in the list, found end of input"),
            ("age IN {1, b}", [], "at 12: a list holds values, not key paths or lists"),
            ("ANY 5 == x", [], "at 5: expected a key path after 'ANY', found the number 5"),
            ("party. == 1", [], "at 8: expected a property name after '.', found '=='"),
            ("x == - y", [], "at 8: expected a number after '-', found 'y'"),
            ("$x == 1", [], "at 1: variables ($name) are not supported; use a %@ placeholder"),
            ("x == 1 ; y", [], "at 8: unexpected character ';'"),
            (
                "SUBQUERY(goods, g, g.value > 1).@count > 0", [],
                "at 1: SUBQUERY is not supported; use ANY, ALL or NONE on the key path"
            ),
            ("x == 0x", [], "at 6: expected hex digits after '0x'"),
            ("x == 1e99999", [], "at 6: the number 1e99999 is out of range"),
            ("x == %s", ["a"], "at 6: unknown placeholder '%s': use %@, %K, %d or %f"),
            ("a == %@ AND b == %@ AND c == %@", ["x", "y"], "at 30: predicate uses 3 arguments, 2 given"),
            ("a == %@", [], "at 6: predicate uses 1 argument, 0 given"),
            ("a == 1", ["x"], "at 1: predicate uses 0 arguments, 1 given"),
            ("a == %d", ["x"], "at 6: argument 1 for %d must be an integer, not string"),
            ("a == %f", [true], "at 6: argument 1 for %f must be a number, not bool"),
            ("%K == 1", [5], "at 1: argument 1 for %K must be a key path, like .keyPath(\"party.acronym\")"),
            ("%K == 1", [.keyPath("a..b")], "at 1: argument 1 for %K is not a key path: 'a..b'"),
            ("a == %@", [.keyPath("b")], "at 6: argument 1 is the key path 'b': use %K for key paths"),
            ("a == %@", [[1, 2]], "at 6: a list of values can only follow IN or BETWEEN, not =="),
            ("a == %d", [[1, 2]], "at 6: argument 1 for %d must be a single value; use %@ for a list"),
            ("city == 'São' AND x === 1", [], "at 21: unknown operator '===': use ==, !=, <, <=, >, >=, &&, || or !"),
            (
                "city == 'Sa\u{0303}o' AND x === 1", [],
                "at 21: unknown operator '===': use ==, !=, <, <=, >, >=, &&, || or !"
            ),
        ] as [(String, [QueryArgument], String)])
    func errorsSayWhereAndWhat(_ text: String, _ arguments: [QueryArgument], _ message: String) {
        #expect(parseError(text, arguments) == message)
    }

    @Test func positionsAreRecordedButIgnoredByEquality() throws {
        let p = try QueryPredicate.parse("  ANY goods.value  >  %@", arguments: [5])
        guard case .comparison(let c) = p else {
            Issue.record("expected a comparison")
            return
        }
        #expect(c.leftPosition.offset == 7)
        #expect(c.operatorPosition.offset == 20)
        #expect(c.rightPosition.offset == 23)
        if case .keyPath(let k) = c.left { #expect(k.positions.map(\.offset) == [7, 13]) }
        #expect(p == (try QueryPredicate.parse("ANY goods.value>5")))
    }

    @Test func composition() throws {
        let a = try QueryPredicate.parse("a == 1")
        let b = try QueryPredicate.parse("b == 2")
        let c = try QueryPredicate.parse("c == 3")
        #expect((a && b) == .and([a, b]))
        #expect((a && b && c) == .and([a, b, c]))
        #expect(((a && b) && (b && c)) == .and([a, b, b, c]))
        #expect((a && .truePredicate) == a)
        #expect((a || b || c) == .or([a, b, c]))
        #expect((a || .falsePredicate) == a)
        #expect(!a == .not(a))
        #expect(!(!a) == a)
        #expect((a && (b || c)) == .and([a, .or([b, c])]))
    }

    @Test(arguments: [
        "name == 'x'", "name ==[cd] 'Jos\\'é'", "ANY goods.value > 1000.5",
        "NOT (a == 1 OR b != 2) AND c IN {1, 'x', nil}",
        "age BETWEEN {18, 65}", "TRUEPREDICATE", "ALL list.x BEGINSWITH[c] 'a\\\\b'", "goods.@count >= -3",
        "NONE x LIKE 'a\\*?'", "(a == 1 AND b == 2) OR NOT c == true",
    ])
    func descriptionParsesBackToTheSamePredicate(_ text: String) throws {
        let p = try QueryPredicate.parse(text)
        #expect(try QueryPredicate.parse(p.description) == p)
    }

    @Test func errorIsEquatableAndLocalized() {
        let e = QueryPredicateError(at: 3, "boom")
        #expect(e.description == "at 3: boom")
        #expect(e.localizedDescription == "at 3: boom")
        #expect(QueryPredicateError(at: 0, "boom").description == "boom")
    }
}
