import Foundation
import UrnaMigrator
import UrnaStore

/// Issue 14's sixth app trial: a newsroom's own schema family, as its developer writes it, v0 to v6.
///
/// | version | change | closure |
/// |---|---|---|
/// | 0 | Byline(text, credit?) embedded; Writer(id int, name indexed, email?, beat?); Tag(name); Story(id uuid, slug, title, writer →, tags [Tag], byline Byline?, published date?, fee double, photo data?, words int?, rating int); Memo(no key: text, story →) | — |
/// | 1 | Writer renamed Reporter (Story.writer → Story.reporter) | yes |
/// | 2 | Reporter.name renamed fullName while Reporter is re-keyed by a text handle ("r7"); fee double → decimal(2) | yes |
/// | 3 | Reporter.email required (default ""); Story.rating optional | — |
/// | 4 | Tag renamed Label: Story.tags holds Labels; Byline gains role (default "staff") | yes |
/// | 5 | Reporter.beat moves to Story.beat; Byline.credit moves to Story.credit; Memo removed (permitted) | yes |
/// | 6 | Story.title renamed headline, the app's own search triggers dropped before and made again after (SQL) | SQL |
///
/// The app keeps its own FTS5 index over story titles (`story_fts`, kept by triggers on Story) and a unique index
/// on `Story.slug`, outside the family; both must survive every migration.
public enum NewsroomFamily {
    static func schema(_ version: Int, _ types: [ObjectSchema]) -> Schema {
        do { return try Schema(family: "newsroom", version: version, types: types) } catch {
            preconditionFailure("newsroom v\(version): \(error)")
        }
    }

    static func byline(credit: Bool, role: Bool) -> ObjectSchema {
        ObjectSchema(
            "Byline", embedded: true,
            [Property("text", .string, default: "")] + (credit ? [Property("credit", .string, optional: true)] : [])
                + (role ? [Property("role", .string, default: "staff")] : []))
    }

    static func reporter(_ name: String, textKey: Bool, emailRequired: Bool, beat: Bool) -> ObjectSchema {
        ObjectSchema(
            name,
            [
                Property("id", textKey ? .string : .int64, primaryKey: true),
                Property(textKey ? "fullName" : "name", .string, default: "", indexed: true),
                emailRequired ? Property("email", .string, default: "") : Property("email", .string, optional: true),
            ] + (beat ? [Property("beat", .string, optional: true)] : []))
    }

    static func tag(_ name: String) -> ObjectSchema {
        ObjectSchema(name, [Property("name", .string, primaryKey: true)])
    }

    struct StoryShape {
        var reporter = "Writer"
        var fee: PropertyType = .double
        var ratingOptional = false
        var tag = "Tag"
        var moved = false
        var title = "title"
    }

    static func story(_ s: StoryShape) -> ObjectSchema {
        ObjectSchema(
            "Story",
            [
                Property("id", .uuid, primaryKey: true), Property("slug", .string, default: ""),
                Property(s.title, .string, default: ""),
                Property(s.reporter == "Writer" ? "writer" : "reporter", .link(s.reporter)),
                Property("tags", .list(s.tag)), Property("byline", .embedded("Byline"), optional: true),
                Property("published", .date, optional: true), Property("fee", s.fee, default: 0),
                Property("photo", .data, optional: true), Property("words", .int64, optional: true),
                s.ratingOptional
                    ? Property("rating", .int64, optional: true) : Property("rating", .int64, default: 0),
            ]
                + (s.moved
                    ? [Property("beat", .string, optional: true), Property("credit", .string, optional: true)] : []))
    }

    static let memo = ObjectSchema(
        "Memo", [Property("text", .string, default: ""), Property("story", .link("Story"))])

    public static let v0 = schema(
        0,
        [
            byline(credit: true, role: false), reporter("Writer", textKey: false, emailRequired: false, beat: true),
            tag("Tag"), story(StoryShape()), memo,
        ])
    public static let v1 = schema(
        1,
        [
            byline(credit: true, role: false), reporter("Reporter", textKey: false, emailRequired: false, beat: true),
            tag("Tag"), story(StoryShape(reporter: "Reporter")), memo,
        ])
    public static let v2 = schema(
        2,
        [
            byline(credit: true, role: false), reporter("Reporter", textKey: true, emailRequired: false, beat: true),
            tag("Tag"), story(StoryShape(reporter: "Reporter", fee: .decimal(scale: 2))), memo,
        ])
    public static let v3 = schema(
        3,
        [
            byline(credit: true, role: false), reporter("Reporter", textKey: true, emailRequired: true, beat: true),
            tag("Tag"), story(StoryShape(reporter: "Reporter", fee: .decimal(scale: 2), ratingOptional: true)), memo,
        ])
    public static let v4 = schema(
        4,
        [
            byline(credit: true, role: true), reporter("Reporter", textKey: true, emailRequired: true, beat: true),
            tag("Label"),
            story(StoryShape(reporter: "Reporter", fee: .decimal(scale: 2), ratingOptional: true, tag: "Label")),
            memo,
        ])
    public static let v5 = schema(
        5,
        [
            byline(credit: false, role: true), reporter("Reporter", textKey: true, emailRequired: true, beat: false),
            tag("Label"),
            story(
                StoryShape(
                    reporter: "Reporter", fee: .decimal(scale: 2), ratingOptional: true, tag: "Label", moved: true)),
        ])
    public static let v6 = schema(
        6,
        [
            byline(credit: false, role: true), reporter("Reporter", textKey: true, emailRequired: true, beat: false),
            tag("Label"),
            story(
                StoryShape(
                    reporter: "Reporter", fee: .decimal(scale: 2), ratingOptional: true, tag: "Label", moved: true,
                    title: "headline")),
        ])

    public static let versions = [v0, v1, v2, v3, v4, v5, v6]
}
