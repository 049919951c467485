select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c") as "total"
from "builds" as "b"
order by "b"."uploaded_at" desc, "b"."id" desc
limit $1
offset $2
