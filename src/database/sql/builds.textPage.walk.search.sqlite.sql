select "b"."id"
from "builds" as "b"
where exists (select 1 as "one"
from "build_search_content" as "c"
where "c"."id" = "b"."id" and instr("c"."c0", ?) > 0)
order by "b"."uploaded_at" desc, "b"."id" desc
limit ?
offset ?
