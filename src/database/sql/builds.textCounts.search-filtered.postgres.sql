select (select count(*) as "total"
from "builds" as "b"
where "b"."search_text" like $1 escape '\' and "b"."search_text" like $2 escape '\' and "b"."status_label" = $3) as "total", (select coalesce(sum("c"."n"), 0) as "n"
from "build_counts" as "c") as "builds"
