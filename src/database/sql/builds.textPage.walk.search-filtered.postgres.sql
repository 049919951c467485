select "b"."id"
from "builds" as "b"
where strpos("b"."search_text", $1) > 0 and strpos("b"."search_text", $2) > 0 and "b"."status_label" = $3
order by "b"."version_name" asc nulls last, "b"."id" asc
limit $4
offset $5
