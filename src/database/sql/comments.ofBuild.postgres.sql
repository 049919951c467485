select "c"."id", "c"."author_id", "c"."author_display_name", "c"."author_email", "c"."body", "c"."created_at", "u"."display_name" as "user_display_name", "u"."email" as "user_email", "u"."avatar_path" as "user_avatar_path", "a"."id" as "attachment_id", "a"."file_path", "a"."mime", "a"."size"
from "builds" as "b"
left join "comments" as "c" on "c"."build_id" = "b"."id"
left join "users" as "u" on "u"."id" = "c"."author_id"
left join "comment_attachments" as "a" on "a"."comment_id" = "c"."id"
where "b"."id" = $1
order by "c"."id", "a"."id"
