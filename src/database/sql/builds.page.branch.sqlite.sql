select "b"."id", (select coalesce(sum("bc"."n"), 0) as "total"
from "build_branch_counts" as "bc"
where "bc"."branch" = ?) as "total"
from "builds" as "b"
where exists (select 1 as "one"
from "build_provenance" as "pv"
where "pv"."build_id" = "b"."id" and "pv"."branch" = ?)
order by "b"."uploaded_at" desc, "b"."id" desc
limit ?
offset ?
