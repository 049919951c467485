select (select count(*) as "total"
from "builds" as "b"
where strpos("b"."search_text", $1) > 0) as "total", (select coalesce(sum("c"."n"), 0) as "n"
from "build_counts" as "c") as "builds"
