select "b"."id", "b"."app_id", "b"."name", "b"."version_name", "b"."build_number", "b"."version_label", "b"."status_label", "b"."platform", "b"."bundle_id", "b"."uploaded_at", "b"."completed_at", "b"."delete_after", "s"."id" as "upload_id", "s"."changed_by_id" as "uploader_id", "s"."changed_by_display_name" as "kept_name", "s"."changed_by_email" as "kept_email", "u"."display_name" as "user_name", "u"."email" as "user_email", exists (select 1 as "one"
from "build_icons" as "i"
where "i"."build_id" = "b"."id") as "has_icon", (select "g"."flags"
from "build_flags" as "g"
where "g"."build_id" = "b"."id") as "flags", "p"."build_id" as "provenance_id", "p"."commit_sha", "p"."branch", "p"."repository", "p"."pull_request", "p"."ci_url", "p"."changelog"
from "builds" as "b"
left join "build_status_changes" as "s" on "s"."id" = (select min("f"."id") as "first"
from "build_status_changes" as "f"
where "f"."build_id" = "b"."id")
left join "users" as "u" on "u"."id" = "s"."changed_by_id"
left join "build_provenance" as "p" on "p"."build_id" = "b"."id"
where "b"."id" in (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
