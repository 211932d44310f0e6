import SerializerSelector from "@fastify/fast-json-stringify-compiler";

type SerializerFactory = SerializerSelector.SerializerFactory;
type Serialize = SerializerSelector.Serializer;

/** Serializers made but not compiled yet, for `compileEverySerializer`. */
const uncompiled = new Set<() => Serialize>();

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled at its first answer rather than as the
 * server starts, as the validators are (validation.ts): a start compiled every route's response schemas.
 */
export const lazySerializers: SerializerFactory = (externalSchemas, serializerOptions) => {
  const compile = SerializerSelector()(externalSchemas, serializerOptions);
  return (route) => {
    let serialize: Serialize | undefined;
    const compiled = () => (serialize ??= compile(route));
    uncompiled.add(compiled);
    return (data: unknown) => (serialize ?? (uncompiled.delete(compiled), compiled()))(data);
  };
};

/** Compiles every serializer not compiled yet: a schema that cannot be compiled throws here. Returns how many. */
export function compileEverySerializer(): number {
  const pending = [...uncompiled];
  uncompiled.clear();
  for (const compile of pending) compile();
  return pending.length;
}
