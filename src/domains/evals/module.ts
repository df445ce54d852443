import { defineModule } from "../../module.ts";
export const evalsModule = defineModule({ name: "evals" });
