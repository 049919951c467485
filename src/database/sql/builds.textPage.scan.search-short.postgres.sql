select "b"."id"
from "builds" as "b"
where strpos("b"."search_text", $1) > 0
order by "b"."uploaded_at" desc, "b"."id" desc
limit $2
offset $3
