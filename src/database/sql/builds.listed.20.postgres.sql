select "b"."id", "b"."app_id", "b"."name", "b"."version_name", "b"."build_number", "b"."version_label", "b"."status_label", "b"."platform", "b"."bundle_id", "b"."uploaded_at", "b"."completed_at", "b"."delete_after", "s"."upload_id", "s"."uploader_id", "s"."kept_name", "s"."kept_email", "s"."user_name", "s"."user_email", exists (select 1 as "one"
from "build_icons" as "i"
where "i"."build_id" = "b"."id") as "has_icon", (select "g"."flags"
from "build_flags" as "g"
where "g"."build_id" = "b"."id") as "flags", "p"."build_id" as "provenance_id", "p"."commit_sha", "p"."branch", "p"."repository", "p"."pull_request", "p"."ci_url", "p"."changelog"
from "builds" as "b"
left join lateral (select "f"."id" as "upload_id", "f"."changed_by_id" as "uploader_id", "f"."changed_by_display_name" as "kept_name", "f"."changed_by_email" as "kept_email", "u"."display_name" as "user_name", "u"."email" as "user_email"
from "build_status_changes" as "f"
left join "users" as "u" on "u"."id" = "f"."changed_by_id"
where "f"."build_id" = "b"."id"
order by "f"."id"
limit 1) as "s" on true
left join lateral (select "pv"."build_id", "pv"."commit_sha", "pv"."branch", "pv"."repository", "pv"."pull_request", "pv"."ci_url", "pv"."changelog"
from "build_provenance" as "pv"
where "pv"."build_id" = "b"."id"
limit 1) as "p" on true
where "b"."id" in ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
