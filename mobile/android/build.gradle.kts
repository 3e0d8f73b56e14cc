// The Android library module of Transformer Studio (issue 56): the same sources Maven builds and tests on the JVM
// (pom.xml), plus LiteRtRuntime (src/litert) and the asset loader (src/android).
// NOT BUILT HERE: the machine this was written on has no Android SDK, so this file, src/main/AndroidManifest.xml,
// src/android/ and sample/ have never been compiled. What is proven is the JVM build of the shared sources.
//
// Use: copy this folder into your project as a module (settings.gradle.kts: include(":transformerstudio") and
// project(":transformerstudio").projectDir = file("library"), the folder's name in a package), then
// `implementation(project(":transformerstudio"))`. Repositories: google() (LiteRT) and mavenCentral().
// Your app, not this library, holds the model: put a package's files under app/src/main/assets/<folder>/ and keep
// the graphs uncompressed so LiteRT can memory-map them (see sample/MainActivity.kt):
//   android { androidResources { noCompress += listOf("tflite", "onnx") } }
// ABIs: both runtimes ship native code for arm64-v8a, armeabi-v7a, x86 and x86_64; an app that wants a smaller APK
// keeps the ones it needs with defaultConfig { ndk { abiFilters += listOf("arm64-v8a") } }.

plugins {
    // AGP 9 compiles Kotlin itself ("built-in Kotlin"): no org.jetbrains.kotlin.android plugin. Pin the Kotlin
    // compiler to the JVM build's (2.4.21) with the Kotlin Gradle plugin on the root build's classpath.
    id("com.android.library") version "9.1.1"
}

android {
    namespace = "transformerstudio"
    compileSdk = 36

    defaultConfig {
        minSdk = 26 // java.nio and ByteBuffer APIs the runtimes use; onnxruntime-android's own minimum is lower
        consumerProguardFiles("consumer-rules.pro")
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }

    sourceSets {
        getByName("main") {
            // the JVM build's sources, LiteRT's runtime, the Android glue; unicode14.txt is a Java resource
            java.srcDirs("src/main/kotlin", "src/litert/kotlin", "src/android/kotlin")
            resources.srcDirs("src/main/resources")
        }
    }
}

dependencies {
    // the versions the JVM build compiles against (pom.xml): ONNX Runtime 1.29.0's Java API, LiteRT's Interpreter
    implementation("com.microsoft.onnxruntime:onnxruntime-android:1.29.0")
    implementation("com.google.ai.edge.litert:litert:2.3.0")
    // org.json is part of Android: no dependency
}
