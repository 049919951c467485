select "b"."id", (select count(*) as "total"
from "build_flags" as "g") as "total"
from "builds" as "b"
where exists (select 1 as "one"
from "build_flags" as "f"
where "f"."build_id" = "b"."id")
order by "b"."uploaded_at" desc, "b"."id" desc
limit ?
offset ?
