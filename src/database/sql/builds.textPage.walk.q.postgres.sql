select "b"."id"
from "builds" as "b"
where lower("b"."version_name") like $1 escape '\' and strpos("b"."search_text", $2) > 0
order by "b"."uploaded_at" desc, "b"."id" desc
limit $3
offset $4
