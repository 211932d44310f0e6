import SerializerSelector from "@fastify/fast-json-stringify-compiler";
import { FirstUse } from "./first-use.ts";

const serializers = new FirstUse();

/** Fastify's own response serializers (fast-json-stringify), each compiled at its route's first answer. */
export const lazySerializers: SerializerSelector.SerializerFactory = (externalSchemas, serializerOptions) => {
  const compile = SerializerSelector()(externalSchemas, serializerOptions);
  return (route) => {
    const compiled = serializers.defer(() => compile(route));
    return (data: unknown) => compiled()(data);
  };
};

/** Compiles every route's serializer not compiled yet (a schema that cannot be compiled throws); how many. */
export const compileEverySerializer = () => serializers.compileEvery();
