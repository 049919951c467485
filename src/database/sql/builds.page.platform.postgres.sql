select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c"
where "c"."platform" = $1) as "total"
from "builds" as "b"
where "b"."platform" = $2
order by "b"."uploaded_at" desc, "b"."id" desc
limit $3
offset $4
