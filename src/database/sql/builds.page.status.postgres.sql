select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c"
where "c"."status_key" = $1) as "total"
from "builds" as "b"
where "b"."status_label" = $2
order by "b"."uploaded_at" desc, "b"."id" desc
limit $3
offset $4
